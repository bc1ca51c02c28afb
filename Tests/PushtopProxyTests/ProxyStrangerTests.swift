import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PushtopProxy

/// Issue 38, point 1: the proxy's listener is `serve`'s (`WebSocketServerPipeline`), so a stranger gets the same
/// answers from both. Each request goes over a raw socket to a real `serve` and to a real proxy in front of it; the
/// status lines must be the same, and both must end the connection. Was: the proxy held a partial request open past
/// `serve`'s deadline, never answered HTTP/0.9, and closed a bad version or a missing key without a word.
@Suite struct ProxyStrangerTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    static let strangers: [(String, String)] = [
        ("HTTP/0.9", "GET /\r\n"),
        (
            "WebSocket version 8",
            "GET /app/KEY HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 8\r\n\r\n"
        ),
        (
            "no Sec-WebSocket-Key",
            "GET /app/KEY HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n"
        ),
        (
            "a POST upgrade",
            "POST /app/KEY HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n"
        ),
        (
            "a repeated query name",
            "GET /app/KEY?protocol=7&protocol=6 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ),
        (
            "a handshake to another path",
            "GET /elsewhere HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ),
        ("a plain GET of the WebSocket endpoint", "GET /app/KEY HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        ("an upgrade to h2c", "GET /app/KEY HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n"),
    ]

    /// Runs `body` with a server (request timeout `requestTimeout`) and a proxy in front of it with the same one.
    func withBoth(requestTimeout: Double = 10, _ body: (_ serve: Int, _ proxy: Int, _ key: String) async throws -> Void)
        async throws
    {
        try await withServer({ $0.requestTimeout = requestTimeout }) { server in
            var configuration = ProxyConfiguration(port: 0, upstream: "ws://127.0.0.1:\(server.port)")
            configuration.requestTimeout = .milliseconds(Int(requestTimeout * 1000))
            let proxy = try await ProxyServer.start(configuration)
            try await runAndCleanUp(
                { try await body(server.port, proxy.port, server.configuration.app.key) },
                finally: { await proxy.shutdown() })
        }
    }

    @Test(arguments: strangers.map(\.0))
    func aStrangerGetsTheSameAnswerFromTheProxyAsFromServe(_ name: String) async throws {
        let request = try #require(Self.strangers.first { $0.0 == name }).1
        try await withBoth { serve, proxy, _ in
            let fromServe = try await RawSocket.exchange(Array(request.utf8), port: serve)
            let fromProxy = try await RawSocket.exchange(Array(request.utf8), port: proxy)
            #expect(fromServe.status.hasPrefix("HTTP/1.1 4"), "serve: \(fromServe)")
            #expect(fromProxy.status == fromServe.status, "\(name): proxy \(fromProxy), serve \(fromServe)")
            #expect(fromProxy.closed, "\(name): the proxy kept the connection")
        }
    }

    /// A request whose headers never end is closed at the request timeout, by both (slowloris).
    @Test func aPartialRequestIsClosedAtTheRequestTimeout() async throws {
        try await withBoth(requestTimeout: 1) { serve, proxy, _ in
            for port in [serve, proxy] {
                let closed = try await offloaded {
                    // Read timeout: the request timeout with a loaded machine's margin. A connection held past it
                    // reads as not closed.
                    let socket = try RawSocket(port: port, timeout: LoadedMachine.bound(1))
                    defer { socket.close() }
                    try socket.send("GET /apps/1/channels HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    return socket.readToEnd().closed
                }
                #expect(closed, "port \(port) held a partial request open")
            }
        }
    }

    /// RSV1 is a message's first frame's alone (RFC 7692 section 6.1): on a continuation or a ping, with deflate
    /// agreed, both close with 1002. Was: the proxy's own joiner and frame checks let both through to the upstream.
    @Test(arguments: ["continuation", "ping"])
    func rsv1WhereNoMessageStartsIsClosedWith1002ByBoth(_ frame: String) async throws {
        try await withBoth { serve, proxy, key in
            for port in [serve, proxy] {
                let code = try await offloaded {
                    let (socket, head) = try RawSocket.webSocketWithHead(
                        port: port, path: "/app/\(key)?protocol=7",
                        headers: ["Sec-WebSocket-Extensions: permessage-deflate"], timeout: 10)
                    defer { socket.close() }
                    guard head.lowercased().contains("permessage-deflate") else { return -1 }
                    _ = try socket.readFrame()  // pusher:connection_established (compressed or not)
                    if frame == "ping" {
                        try socket.sendFrame(opcode: 0x9, payload: [], rsv1: true)
                    } else {
                        try socket.sendFrame(opcode: 0x1, payload: [0x7b], fin: false)
                        try socket.sendFrame(opcode: 0x0, payload: [0x7d], rsv1: true)
                    }
                    return socket.readCloseCode() ?? 0
                }
                #expect(code == 1002, "\(frame) with RSV1 on port \(port): \(code)")
            }
        }
    }
}
