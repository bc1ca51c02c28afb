import Foundation
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// RFC 6455 sections 5.5.1 and 7.4 on the client side: a server's broken close frame (1-byte payload, a code that
/// must not be sent, a reason that is not UTF-8) is answered 1002 or 1007 on the wire, the connection counts as
/// failed with a protocol error and the client reconnects per its policy; a valid close is echoed with its code.
@Suite(.timeLimit(.minutes(1))) struct CloseFrameHandlingTests {
    struct Result {
        /// The code of the client's close frame, as the proxy between the two saw it.
        var answeredWith: Int?
        /// How the client reported the closure.
        var closure: ConnectionClosure
    }

    /// Connects a client (through a proxy that reads its close frame) to a scripted server, has the server send a
    /// close frame with `payload`, and waits for the client's answer, its closure and its reconnection.
    static func serverCloses(with payload: [UInt8]) async throws -> Result {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let proxy = try await FaultProxy.start(upstreamPort: server.port, observing: true)
        defer { proxy.stop() }
        let client = PusherClient(
            options: PusherClientOptions(
                key: "test-key", host: "127.0.0.1", port: proxy.port,
                connection: ConnectionConfiguration(
                    useTLS: false, reconnect: .init(minDelay: 0.05, maxDelay: 0.2, jitter: 0))))
        let recorder = EventRecorder(client)
        await client.connect()
        try await recorder.waitForState(.connected)
        try await server.connection(1).closeRaw(payload: payload)
        try await waitUntil("the client's close frame") { proxy.connections.first?.closeCodeFromClient != nil }
        let event = try await recorder.wait("the closure") { if case .closed = $0 { true } else { false } }
        guard case .closed(let closure) = event else { throw RecorderFailure() }
        // The state machine goes on per its rules: every closure here reconnects per policy.
        try await recorder.waitForState(.connected, occurrence: 2)
        await client.shutdown()
        return Result(answeredWith: proxy.connections.first?.closeCodeFromClient, closure: closure)
    }

    struct RecorderFailure: Error {}

    static func close(_ code: Int, reason: [UInt8] = []) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
    }

    @Test func aOneBytePayloadIsAnswered1002() async throws {
        let result = try await Self.serverCloses(with: [0x03])
        #expect(result.answeredWith == 1002)
        #expect(result.closure.code == nil, "a broken close frame's code is not the reason: \(result.closure)")
        #expect(result.closure.reason.contains("1002"), "\(result.closure.reason)")
        #expect(result.closure.action == .followPolicy)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535])
    func aCodeThatMustNotBeSentIsAnswered1002(code: Int) async throws {
        let result = try await Self.serverCloses(with: Self.close(code, reason: Array("bye".utf8)))
        #expect(result.answeredWith == 1002)
        #expect(result.closure.code == nil)
        #expect(result.closure.reason.contains("status code \(code)"), "\(result.closure.reason)")
        #expect(result.closure.action == .followPolicy)
    }

    @Test func aReasonThatIsNotUTF8IsAnswered1007() async throws {
        // Autobahn 7.5.1's payload: "κόσμε", an encoded surrogate (ED A0 80), "edited"; with a Pusher code that
        // would otherwise refuse reconnection (4001): the broken frame's code is not taken.
        let reason: [UInt8] =
            [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80]
            + Array("edited".utf8)
        let result = try await Self.serverCloses(with: Self.close(4001, reason: reason))
        #expect(result.answeredWith == 1007)
        #expect(result.closure.code == nil)
        #expect(result.closure.reason.contains("1007"), "\(result.closure.reason)")
        #expect(result.closure.action == .followPolicy)
    }

    @Test(arguments: [1000, 1001, 1011, 1012, 3000, 3999, 4200])
    func aValidCloseIsEchoedWithItsCode(code: Int) async throws {
        let result = try await Self.serverCloses(with: Self.close(code, reason: Array("κόσμε".utf8)))
        #expect(result.answeredWith == code)
        #expect(result.closure.code == code)
        #expect(result.closure.reason == "κόσμε")
    }

    @Test func anEmptyCloseIsAnsweredWithANormalClose() async throws {
        let result = try await Self.serverCloses(with: [])
        #expect(result.answeredWith == 1000)
        #expect(result.closure.code == 1005)
    }
}
