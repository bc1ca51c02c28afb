import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

/// Malformed and slow HTTP over raw sockets: every one gets an answer and a closed connection, never silence.
@Suite("Malformed HTTP")
struct MalformedHTTPTests {
    /// Sends `request` and returns the response status line and whether the server closed the connection.
    static func exchange(_ request: [UInt8], port: Int) async throws -> (status: String, closed: Bool) {
        try await RawSocket.exchange(request, port: port)
    }

    @Test(arguments: [
        ("garbage", "GARBAGE\r\n\r\n"),
        ("content-length-abc", "POST /apps/1/events HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
        (
            "two-content-lengths",
            "POST /apps/1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc"
        ),
        ("header-without-colon", "GET /apps/1/channels HTTP/1.1\r\nHost: x\r\nthis header has no colon\r\n\r\n"),
        ("bare-lf", "GET /apps/1/channels HTTP/1.1\nHost: x\nFoo: bar\n\n"),
        ("http2-preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    ])
    func malformedRequestIsAnswered400AndClosed(name: String, request: String) async throws {
        try await withServer { server in
            let (status, closed) = try await Self.exchange(Array(request.utf8), port: server.port)
            #expect(status.hasPrefix("HTTP/1.1 400"), "\(name): got '\(status)'")
            #expect(closed, "\(name): the connection stayed open")
        }
    }

    @Test func hugeRequestLineIsRefusedAndClosed() async throws {
        try await withServer { server in
            let request = "GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"
            let (status, closed) = try await Self.exchange(Array(request.utf8), port: server.port)
            #expect(status.hasPrefix("HTTP/1.1 4"), "got '\(status)'")
            #expect(
                ["400", "414", "431"].contains(status.split(separator: " ").dropFirst().first.map(String.init) ?? ""))
            #expect(closed)
        }
    }

    @Test func slowHeadersAndIdleConnectionsAreClosed() async throws {
        try await withServer({
            $0.requestTimeout = 1; $0.idleTimeout = 1
        }) { server in
            let closed = try await offloaded { () -> [Bool] in
                // One idle after a request, half a request never finished, a connection that never sends.
                let idle = try RawSocket(port: server.port, timeout: 5)
                try idle.send("GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try idle.readHTTPHead()
                let slow = try RawSocket(port: server.port, timeout: 5)
                try slow.send("GET /apps/1/channels HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                let silent = try RawSocket(port: server.port, timeout: 5)
                return [idle.readToEnd().closed, slow.readToEnd().closed, silent.readToEnd().closed]
            }
            #expect(closed == [true, true, true])
        }
    }

    @Test func theConnectionCapHoldsNewConnectionsUntilOneCloses() async throws {
        try await withServer({ $0.maxConnections = 2 }) { server in
            let answered = try await offloaded { () -> (capped: Bool, afterClose: Bool) in
                let request = "GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n"
                var open: [RawSocket] = []
                for _ in 0..<2 {
                    let socket = try RawSocket(port: server.port, timeout: 5)
                    try socket.send(request)
                    _ = try socket.readHTTPHead()  // served, and kept alive
                    open.append(socket)
                }
                // The kernel queues a third connection in the backlog, but the server does not serve it.
                let third = try RawSocket(port: server.port, timeout: 1)
                try third.send(request)
                let capped = (try? third.readHTTPHead()) == nil
                open[0].close()
                // Once one closes, the waiting connection is served.
                third.setReadTimeout(10)
                let third2 = try? third.readHTTPHead()
                return (capped, third2?.hasPrefix("HTTP/1.1 404") == true)
            }
            #expect(answered.capped)
            #expect(answered.afterClose)
        }
    }

    @Test func apiBodyThatIsNotUTF8Is400() async throws {
        try await withServer { server in
            var body = Array("{\"name\":\"e\",\"channel\":\"c\",\"data\":\"".utf8)
            body += [0xFF, 0xFE, 0xC3]
            body += Array("\"}".utf8)
            let path = "/apps/\(server.configuration.app.id)/events"
            let query = APIRequestSignature.sign(
                method: "POST", path: path, key: server.configuration.app.key, secret: server.configuration.app.secret,
                body: body
            ).map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            var request = Array(
                "POST \(path)?\(query) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                    .utf8)
            request += body
            let (status, _) = try await Self.exchange(request, port: server.port)
            #expect(status.hasPrefix("HTTP/1.1 400"), "got '\(status)'")
        }
    }
}
