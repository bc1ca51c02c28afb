import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

/// RFC 6455 over raw sockets: broken frames close with the code the RFC names, broken handshakes get HTTP errors.
@Suite("RFC 6455")
struct WebSocketProtocolTests {
    /// Opens a socket to the server's app (with `headers` in the handshake), sends `frames` once the server's
    /// first frame is in, and returns the close code the server sent.
    static func closeCode(
        _ server: EmbeddedServer, headers: [String] = [], after frames: @escaping @Sendable (RawSocket) throws -> Void
    ) async throws -> Int? {
        let port = server.port
        let key = server.configuration.app.key
        return try await offloaded {
            let (socket, _) = try RawSocket.webSocketWithHead(
                port: port, path: "/app/\(key)?protocol=7", headers: headers, timeout: 5)
            defer { socket.close() }
            if headers.isEmpty {
                _ = try socket.readEvent("pusher:connection_established")
            } else {
                _ = try socket.readFrame()  // connection_established, perhaps compressed
            }
            try frames(socket)
            return socket.readCloseCode()
        }
    }

    @Test func invalidUTF8InATextFrameCloses1007() async throws {
        try await withServer { server in
            let code = try await Self.closeCode(server) {
                try $0.sendFrame(opcode: 0x1, payload: [0x7B, 0xC3, 0x28, 0x7D])
            }
            #expect(code == 1007)
        }
    }

    @Test func invalidUTF8SplitAcrossFragmentsCloses1007() async throws {
        try await withServer { server in
            let code = try await Self.closeCode(server) { socket in
                try socket.sendFrame(opcode: 0x1, payload: [0x7B, 0xE2, 0x82], fin: false)
                try socket.sendFrame(opcode: 0x0, payload: [0x28, 0x7D])
            }
            #expect(code == 1007)
        }
    }

    @Test func aContinuationWithNoMessageCloses1002() async throws {
        try await withServer { server in
            let code = try await Self.closeCode(server) { try $0.sendFrame(opcode: 0x0, payload: Array("{}".utf8)) }
            #expect(code == 1002)
        }
    }

    @Test func aNewTextFrameInsideAFragmentedMessageCloses1002() async throws {
        try await withServer { server in
            let code = try await Self.closeCode(server) { socket in
                try socket.sendFrame(opcode: 0x1, payload: Array("{\"event\":".utf8), fin: false)
                try socket.sendFrame(opcode: 0x1, payload: Array("{}".utf8))
            }
            #expect(code == 1002)
        }
    }

    @Test func aFragmentedMessageOverTheLimitCloses1009() async throws {
        try await withServer({ $0.limits.maxMessageBytes = 4_096 }) { server in
            let code = try await Self.closeCode(server) { socket in
                let chunk = [UInt8](repeating: 0x61, count: 1_500)
                try socket.sendFrame(opcode: 0x1, payload: chunk, fin: false)
                try socket.sendFrame(opcode: 0x0, payload: chunk, fin: false)
                try socket.sendFrame(opcode: 0x0, payload: chunk, fin: false)
                try socket.sendFrame(opcode: 0x0, payload: chunk)
            }
            #expect(code == 1009)
        }
    }

    @Test func aFragmentedMessageWithinTheLimitIsOneMessage() async throws {
        try await withServer { server in
            let port = server.port
            let key = server.configuration.app.key
            let pong = try await offloaded {
                let socket = try RawSocket.webSocket(port: port, path: "/app/\(key)?protocol=7", timeout: 5)
                _ = try socket.readEvent("pusher:connection_established")
                try socket.sendFrame(opcode: 0x1, payload: Array("{\"event\":\"pus".utf8), fin: false)
                try socket.sendFrame(opcode: 0x9, payload: Array("in between".utf8))  // a ping may interleave
                try socket.sendFrame(opcode: 0x0, payload: Array("her:ping\",\"data\":{}}".utf8))
                return try socket.readEvent("pusher:pong")
            }
            #expect(pong.contains("pusher:pong"))
        }
    }

    @Test func anUnmaskedClientFrameCloses1002() async throws {
        try await withServer { server in
            let code = try await Self.closeCode(server) { socket in
                try socket.sendFrame(opcode: 0x1, payload: Array("{\"event\":\"pusher:ping\"}".utf8), masked: false)
            }
            #expect(code == 1002)
        }
    }

    @Test func theClientsCloseIsAnsweredWithItsCode() async throws {
        try await withServer { server in
            let code = try await Self.closeCode(server) { try $0.sendFrame(opcode: 0x8, payload: [0x03, 0xE8]) }
            #expect(code == 1000)
            try await waitUntil("the hub to forget the connection") { await server.hub.connectionCount == 0 }
        }
    }

    /// The response head the server answers a handshake with `headers` (beyond Host) with; the connection must
    /// be closed after it.
    static func handshake(_ server: EmbeddedServer, path: String? = nil, headers: String) async throws -> String {
        let port = server.port
        let target = path ?? "/app/\(server.configuration.app.key)?protocol=7"
        let (head, closed) = try await offloaded {
            let socket = try RawSocket(port: port, timeout: 5)
            try socket.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n")
            let head = try socket.readHTTPHead()
            return (head, socket.readToEnd().closed)
        }
        #expect(closed, "the connection stayed open after \(head)")
        return head
    }

    /// The headers of a WebSocket handshake (beyond Host): `upgrade` to, `key` (none when nil), `version`.
    static func upgradeHeaders(
        upgrade: String = "websocket", key: String? = "dGhlIHNhbXBsZSBub25jZQ==", version: Int = 13
    ) -> String {
        "Upgrade: \(upgrade)\r\nConnection: Upgrade\r\n" + (key.map { "Sec-WebSocket-Key: \($0)\r\n" } ?? "")
            + "Sec-WebSocket-Version: \(version)\r\n"
    }

    @Test func aHandshakeWithoutKeyIs400() async throws {
        try await withServer { server in
            let head = try await Self.handshake(server, headers: Self.upgradeHeaders(key: nil))
            #expect(head.hasPrefix("HTTP/1.1 400"), "got \(head)")
        }
    }

    @Test func anUpgradeToAnotherProtocolIs400() async throws {
        try await withServer { server in
            let head = try await Self.handshake(server, headers: Self.upgradeHeaders(upgrade: "foo"))
            #expect(head.hasPrefix("HTTP/1.1 400"), "got \(head)")
        }
    }

    @Test func version8Is426NamingVersion13() async throws {
        try await withServer { server in
            let head = try await Self.handshake(server, headers: Self.upgradeHeaders(version: 8))
            #expect(head.hasPrefix("HTTP/1.1 426"), "got \(head)")
            #expect(head.lowercased().contains("sec-websocket-version: 13"))
        }
    }
}
