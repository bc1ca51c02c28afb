import Foundation
import PushtopTestSupport
import Testing

/// `pushtop proxy` in front of an upstream that refuses in the same write as its `101` and ends the connection at
/// once: the client gets the refusal every time (repeated: a race that loses the bytes after the upstream's `101`
/// shows in a few tries).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ProxyUpstreamRefusalTests {
    static let tries = 30

    /// Starts `pushtop proxy` in front of `upstream`; its port.
    static func proxy(inFrontOf upstream: OneWriteUpgradeServer) async throws -> (PushtopProcess, Int) {
        try await ProxyNode.launch(upstreamPort: upstream.port, key: "key", secret: "secret", appID: "1")
    }

    /// The frames a raw client of the proxy receives until its connection ends.
    static func frames(port: Int) async throws -> [RawSocket.Frame] {
        try await offloaded {
            let socket = try RawSocket.webSocket(port: port, path: "/app/WRONG?protocol=7&client=js&version=8.6.0")
            defer { socket.close() }
            var frames: [RawSocket.Frame] = []
            while let frame = try? socket.readFrame() {
                frames.append(frame)
                if frame.opcode == 0x8 { break }
            }
            return frames
        }
    }

    @Test func aPusherErrorAndTheFINWithTheUpstreams101ReachTheClient() async throws {
        let upstream = try await OneWriteUpgradeServer.start([
            OneWriteUpgradeServer.refusal(4001, message: "App key WRONG does not exist")
        ])
        defer { upstream.stop() }
        let (process, port) = try await Self.proxy(inFrontOf: upstream)
        defer { process.signal(SIGTERM) }
        for attempt in 1...Self.tries {
            let frames = try await Self.frames(port: port)
            #expect(
                frames.contains { $0.opcode == 0x1 && $0.text.contains(#""code":4001"#) },
                "try \(attempt): \(frames.map(\.text))")
        }
        #expect(upstream.upgrades == Self.tries)
    }

    @Test func aCloseFrameWithTheUpstreams101ReachesTheClientWithItsCodeAndReason() async throws {
        let upstream = try await OneWriteUpgradeServer.start([.close(code: 4009, reason: "Unauthorized connection")])
        defer { upstream.stop() }
        let (process, port) = try await Self.proxy(inFrontOf: upstream)
        defer { process.signal(SIGTERM) }
        for attempt in 1...Self.tries {
            let frames = try await Self.frames(port: port)
            let close = frames.last { $0.opcode == 0x8 }
            #expect(close?.closeCode == 4009, "try \(attempt): \(frames.map { ($0.opcode, $0.text) })")
            #expect(close?.text.hasSuffix("Unauthorized connection") == true, "try \(attempt)")
        }
    }
}
