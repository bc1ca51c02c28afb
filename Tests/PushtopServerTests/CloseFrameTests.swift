import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

/// RFC 6455 sections 5.5.1 and 7.4 on close frames, as Autobahn|Testsuite's cases 7.3.x, 7.5.1, 7.7.x and 7.9.x
/// check them: a raw client sends a masked close frame and reads what the server answers. A valid close is echoed
/// with its code; a broken one is answered 1002 (or 1007 for a reason that is not UTF-8). Either way the server
/// then ends the TCP connection.
@Suite("Close frames (Autobahn 7.x)")
struct CloseFrameTests {
    /// What the server answered a close frame with `payload`: the code of its close frame (1005 for an empty one,
    /// `nil` for none) and whether it then ended the connection.
    /// Expects the server to answer `payload` with a close frame of `code` and to end the connection.
    static func expectAnswer(
        _ code: Int, to payload: [UInt8], server: EmbeddedServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let answer = try await answer(to: payload, server: server)
        #expect(answer.code == code, sourceLocation: sourceLocation)
        #expect(answer.ended, sourceLocation: sourceLocation)
    }

    static func answer(to payload: [UInt8], server: EmbeddedServer) async throws -> (code: Int?, ended: Bool) {
        let port = server.port
        let key = server.configuration.app.key
        return try await offloaded {
            let socket = try RawSocket.webSocket(port: port, path: "/app/\(key)?protocol=7", timeout: 5)
            _ = try socket.readEvent("pusher:connection_established")
            try socket.sendFrame(opcode: 0x8, payload: payload)
            let code = socket.readCloseCode()
            return (code, socket.readToEnd().closed)
        }
    }

    static func close(_ code: Int, reason: [UInt8] = []) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
    }

    // MARK: 7.3.x: close frame structure

    @Test("7.3.1 an empty close is answered with a normal close")
    func emptyClose() async throws {
        try await withServer { server in
            try await Self.expectAnswer(1000, to: [], server: server)
        }
    }

    @Test("7.3.2 a 1-byte close payload is answered 1002")
    func oneByteClose() async throws {
        try await withServer { server in
            try await Self.expectAnswer(1002, to: [0x03], server: server)
        }
    }

    @Test("7.3.3-7.3.5 a close with a code and a reason of 0, 12 or 123 bytes is echoed", arguments: [0, 12, 123])
    func closeWithReason(reasonBytes: Int) async throws {
        try await withServer { server in
            let reason = Array(String(repeating: "*", count: reasonBytes).utf8)
            try await Self.expectAnswer(1000, to: Self.close(1000, reason: reason), server: server)
        }
    }

    @Test("7.3.6 a close payload of 126 bytes (over the control frame limit) is answered 1002")
    func oversizedClose() async throws {
        try await withServer { server in
            try await Self.expectAnswer(
                1002, to: Self.close(1000, reason: Array(String(repeating: "*", count: 124).utf8)), server: server)
        }
    }

    // MARK: 7.5.1: reason encoding

    @Test("7.5.1 a close reason that is not UTF-8 is answered 1007")
    func invalidUTF8Reason() async throws {
        try await withServer { server in
            // "κόσμε" followed by an encoded surrogate (ED A0 80), then "edited": Autobahn's payload.
            let reason: [UInt8] =
                [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80]
                + Array("edited".utf8)
            try await Self.expectAnswer(1007, to: Self.close(1000, reason: reason), server: server)
        }
    }

    @Test("a close reason in valid multi-byte UTF-8 is echoed")
    func multiByteReason() async throws {
        try await withServer { server in
            try await Self.expectAnswer(1001, to: Self.close(1001, reason: Array("κόσμε 👋".utf8)), server: server)
        }
    }

    // MARK: 7.7.x: codes that may be sent

    /// Autobahn's 7.7.1-7.7.13, plus 1012-1014 (registered with IANA after RFC 6455: service restart, try again
    /// later, bad gateway), which older Autobahn versions still listed as invalid.
    @Test(
        "7.7.x a valid close code is echoed",
        arguments: [
            1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999,
        ])
    func validCodeIsEchoed(code: Int) async throws {
        try await withServer { server in
            try await Self.expectAnswer(code, to: Self.close(code), server: server)
        }
    }

    // MARK: 7.9.x: codes that must not be sent

    /// Autobahn's 7.9.x, plus 1015 (reporting only) and codes past 4999 (7.13.x, which Autobahn leaves open).
    @Test(
        "7.9.x a close code that must not be sent is answered 1002",
        arguments: [
            0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535,
        ])
    func invalidCodeIs1002(code: Int) async throws {
        try await withServer { server in
            try await Self.expectAnswer(1002, to: Self.close(code, reason: Array("bye".utf8)), server: server)
        }
    }

    @Test("after a broken close the hub forgets the connection")
    func brokenCloseEndsTheConnectionForTheHub() async throws {
        try await withServer { server in
            let answer = try await Self.answer(to: Self.close(1005), server: server)
            #expect(answer.code == 1002)
            try await waitUntil("the hub to forget the connection") { await server.hub.connectionCount == 0 }
        }
    }
}
