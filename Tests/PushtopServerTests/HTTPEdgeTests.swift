import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

/// The HTTP edges of the WebSocket endpoint over raw sockets: only `/app/KEY` upgrades, and an HTTP/0.9 request
/// line is answered and closed rather than left hanging.
@Suite("HTTP edges")
struct HTTPEdgeTests {
    static let upgradeHeaders =
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"

    /// Sends `request` and returns the status line of the answer and whether the server then ended the connection.
    static func exchange(_ request: String, port: Int) async throws -> (status: String, closed: Bool) {
        try await RawSocket.exchange(Array(request.utf8), port: port)
    }

    @Test func theAppEndpointItselfUpgrades() async throws {
        try await withServer { server in
            let key = server.configuration.app.key
            let head = try await offloaded {
                let socket = try RawSocket(port: server.port, timeout: 5)
                try socket.send(
                    "GET /app/\(key)?protocol=7&client=js HTTP/1.1\r\nHost: x\r\n\(Self.upgradeHeaders)\r\n")
                return try socket.readHTTPHead()
            }
            #expect(head.hasPrefix("HTTP/1.1 101"), "got \(head)")
        }
    }

    @Test(arguments: ["/anything", "/", "/anything?protocol=7", "/a/b"])
    func aHandshakeBelowTheAppPathIs404(suffix: String) async throws {
        try await withServer { server in
            let path = "/app/\(server.configuration.app.key)\(suffix)"
            let (status, closed) = try await Self.exchange(
                "GET \(path) HTTP/1.1\r\nHost: x\r\n\(Self.upgradeHeaders)\r\n", port: server.port)
            #expect(status.hasPrefix("HTTP/1.1 404"), "\(path): got '\(status)'")
            #expect(closed, "\(path): the connection stayed open")
        }
    }

    @Test func aHandshakeToAnEmptyKeyIs404() async throws {
        try await withServer { server in
            let (status, closed) = try await Self.exchange(
                "GET /app/?protocol=7 HTTP/1.1\r\nHost: x\r\n\(Self.upgradeHeaders)\r\n", port: server.port)
            #expect(status.hasPrefix("HTTP/1.1 404"), "got '\(status)'")
            #expect(closed)
        }
    }

    @Test func aPlainGetBelowTheAppPathIs404() async throws {
        try await withServer { server in
            let (status, _) = try await Self.exchange(
                "GET /app/\(server.configuration.app.key)/anything HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                port: server.port)
            #expect(status.hasPrefix("HTTP/1.1 404"), "got '\(status)'")
        }
    }

    @Test(arguments: ["GET /\r\n", "GET /app/KEY\r\n", "GET /\r\n\r\n"])
    func anHTTP09RequestLineIsAnswered400AndClosed(request: String) async throws {
        try await withServer { server in
            let (status, closed) = try await Self.exchange(
                request.replacingOccurrences(of: "KEY", with: server.configuration.app.key), port: server.port)
            #expect(status.hasPrefix("HTTP/1.1 400"), "\(request.debugDescription): got '\(status)'")
            #expect(closed, "\(request.debugDescription): the connection stayed open")
        }
    }

    @Test func aRequestLineArrivingInPiecesIsServedAsUsual() async throws {
        try await withServer { server in
            let (http09, http11) = try await offloaded { () -> (String, String) in
                let old = try RawSocket(port: server.port, timeout: 5)
                try old.send("GET ")
                try old.send("/")
                try old.send("\r\n")
                let oldHead = try old.readHTTPHead()
                let new = try RawSocket(port: server.port, timeout: 5)
                try new.send("GE")
                try new.send("T /nothing-here HTT")
                try new.send("P/1.1\r\nHost: x\r\n\r\n")
                return (oldHead, try new.readHTTPHead())
            }
            #expect(http09.hasPrefix("HTTP/1.1 400"), "got \(http09)")
            #expect(http11.hasPrefix("HTTP/1.1 404"), "got \(http11)")
        }
    }
}
