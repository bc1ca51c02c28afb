import PushtopTestSupport
import Testing

@testable import PushtopConformance

/// A server that refuses in the same write as its `101` and ends the connection at once: the probe keeps what came
/// with the `101`, in order, every time (repeated: a race that loses the bytes after the `101` shows in a few tries).
@Suite(.timeLimit(.minutes(2))) struct ProbeSocketUpgradeReadTests {
    static let tries = 50

    /// The frames a fresh probe of `server` received, once its connection ended.
    static func received(_ server: OneWriteUpgradeServer) async throws -> [ProbeFrame.Kind] {
        let socket = try await ProbeSocket.connect(
            url: "ws://127.0.0.1:\(server.port)/app/WRONG?protocol=7", timeout: 5)
        _ = await socket.waitFor(5) { if case .ended = $0.kind { true } else { false } }
        socket.drop()
        return socket.frames.filter { $0.direction == .received }.map(\.kind)
    }

    @Test func aPusherErrorAndTheFINWithThe101AreRecorded() async throws {
        let refusal = OneWriteUpgradeServer.refusal(4001, message: "App key WRONG does not exist")
        let server = try await OneWriteUpgradeServer.start([refusal])
        defer { server.stop() }
        guard case .text(let text) = refusal else { return }
        for attempt in 1...Self.tries {
            let frames = try await Self.received(server)
            #expect(frames.first == .text(text), "try \(attempt): \(frames)")
            #expect(frames.count == 2, "try \(attempt): \(frames)")
            if case .ended = frames.last {} else { Issue.record("try \(attempt): no end after \(frames)") }
        }
    }

    @Test func aCloseFrameWithThe101IsRecordedWithItsCodeAndReason() async throws {
        let server = try await OneWriteUpgradeServer.start([.close(code: 4009, reason: "Unauthorized connection")])
        defer { server.stop() }
        for attempt in 1...Self.tries {
            let frames = try await Self.received(server)
            #expect(frames.first == .close(code: 4009, reason: "Unauthorized connection"), "try \(attempt): \(frames)")
        }
    }

    @Test func anUpgradeWithAWrongAcceptIsNotAWebSocket() async throws {
        // A raw server that answers 101 with an Accept that does not answer the key.
        let server = try await RawHTTPAnswer.start(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
        defer { server.stop() }
        do {
            _ = try await ProbeSocket.connect(url: "ws://127.0.0.1:\(server.port)/app/key", timeout: 5)
            Issue.record("a 101 with a wrong Sec-WebSocket-Accept was taken for a WebSocket")
        } catch {
            #expect("\(error)".contains("Sec-WebSocket-Accept"), "\(error)")
        }
    }
}
