import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PushtopProxy

/// The proxy reads every query by the one rule (`URLQuery`), as `serve` does: its console feed, its control
/// endpoint and a client's upgrade (`/app/KEY?protocol=7…`) answer a repeated name or bad percent-encoding with a
/// 400 naming the parameter. A real proxy in front of a real server, over loopback, with raw HTTP.
@Suite struct ProxyQueryRuleTests {
    /// Runs `body` with a proxy (for the server's app) in front of a server.
    func withProxy(_ body: (ProxyServer, AppCredentials) async throws -> Void) async throws {
        try await withServer { server in
            let app = server.configuration.app
            let proxy = try await ProxyServer.start(
                ProxyConfiguration(port: 0, upstream: "ws://127.0.0.1:\(server.port)", app: app))
            try await runAndCleanUp({ try await body(proxy, app) }, finally: { await proxy.shutdown() })
        }
    }

    func answer(_ request: String, port: Int) async throws -> RawHTTPResponse {
        try await RawSocket.oneByOne([request], port: port, timeout: 5)[0]
    }

    /// Was: the first `types` counted (the feed answered 200 with error rows only).
    @Test func theConsoleFeedAnswersARepeatedTypesWith400NamingIt() async throws {
        try await withProxy { proxy, app in
            var request = SignedHTTPRequest(
                "GET", "/apps/\(app.id)/console", key: app.key, secret: app.secret, parameters: ["types": "error"])
            request.query.append(("types", "api_message"))
            let response = try await answer(request.text(close: true), port: proxy.port)
            #expect(response.status == 400)
            #expect(response.body.contains("Query parameter 'types' is given more than once"))
        }
    }

    /// The console's `types=` is read by `serve`'s code: an unknown type is the same 400.
    @Test func theConsoleFeedAnswersAnUnknownTypeAsServeDoes() async throws {
        try await withProxy { proxy, app in
            let request = SignedHTTPRequest(
                "GET", "/apps/\(app.id)/console", key: app.key, secret: app.secret, parameters: ["types": "error,nope"])
            let response = try await answer(request.text(close: true), port: proxy.port)
            #expect(response.status == 400)
            #expect(response.body.contains("Unknown row type 'nope'"))
        }
    }

    /// Was: `%zz` kept as it was sent (Hummingbird's reader), the fault list served.
    @Test func theControlEndpointAnswersBadPercentEncodingWith400NamingTheParameter() async throws {
        try await withProxy { proxy, app in
            let request = SignedHTTPRequest(
                "GET", "/apps/\(app.id)/proxy/faults", key: app.key, secret: app.secret, parameters: ["x": "%zz"])
            let response = try await answer(request.text(close: true), port: proxy.port)
            #expect(response.status == 400)
            #expect(response.body.contains("Query parameter 'x' is badly percent-encoded"))
            // Well-formed, it is served.
            let good = SignedHTTPRequest("GET", "/apps/\(app.id)/proxy/faults", key: app.key, secret: app.secret)
            let answer1 = try await answer(good.text(close: true), port: proxy.port)
            #expect(answer1.status == 200)
        }
    }

    /// Was: the first `protocol` counted, the upstream dialled and the socket relayed.
    @Test func aClientUpgradeWithARepeatedNameIsAnswered400AndNeverDialled() async throws {
        try await withProxy { proxy, app in
            let port = proxy.port
            let response = try await offloaded {
                let socket = try RawSocket(port: port, timeout: 5)
                defer { socket.close() }
                try socket.send(
                    "GET /app/\(app.key)?protocol=7&client=js&protocol=6 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                return try socket.readHTTPResponse()
            }
            #expect(response.status == 400)
            #expect(response.body.contains("Query parameter 'protocol' is given more than once"))
            #expect(proxy.core.allRelays.isEmpty)
            // A well-formed query is relayed.
            let socket = try await offloaded {
                let socket = try RawSocket.webSocket(port: port, path: "/app/\(app.key)?protocol=7&client=js")
                _ = try socket.readEvent("pusher:connection_established")
                return socket
            }
            socket.close()
        }
    }
}
