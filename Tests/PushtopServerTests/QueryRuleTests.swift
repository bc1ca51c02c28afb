import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PushtopServer

/// Every query `pushtop serve` reads follows the one rule (`URLQuery`), on the real server over loopback: a repeated
/// name or bad percent-encoding is a 400 naming the parameter, wherever the query is read; `+` is a space.
@Suite struct QueryRuleTests {
    /// A signed `GET`, with `extra` written after the signed pairs (unsigned).
    func signedGET(_ path: String, _ app: AppCredentials, parameters: [String: String], extra: (String, String)? = nil)
        -> String
    {
        var request = SignedHTTPRequest("GET", path, key: app.key, secret: app.secret, parameters: parameters)
        if let extra { request.query.append(extra) }
        return request.text(close: true)
    }

    func answer(_ request: String, port: Int) async throws -> RawHTTPResponse {
        try await RawSocket.oneByOne([request], port: port, timeout: 5)[0]
    }

    /// Was: the first `types` counted (the feed answered 200 with error rows only).
    @Test func theConsoleFeedAnswersARepeatedTypesWith400NamingIt() async throws {
        try await withServer { server in
            let app = server.configuration.app
            let request = signedGET(
                "/apps/\(app.id)/console", app, parameters: ["types": "error"], extra: ("types", "api_message"))
            #expect(request.contains("types=error&") && request.contains("&types=api_message HTTP/1.1"))
            let response = try await answer(request, port: server.port)
            #expect(response.status == 400)
            #expect(response.body.contains("Query parameter 'types' is given more than once"))
            #expect(response.head.lowercased().contains("content-type: application/json"))
        }
    }

    /// Was: `%zz` kept as it was sent, the request served.
    @Test func theConsoleFeedAnswersBadPercentEncodingWith400NamingTheParameter() async throws {
        try await withServer { server in
            let app = server.configuration.app
            let request = signedGET("/apps/\(app.id)/console", app, parameters: ["types": "error%zz"])
            let response = try await answer(request, port: server.port)
            #expect(response.status == 400)
            #expect(response.body.contains("'types'") && response.body.contains("percent-encoded"))
        }
    }

    /// Was: the HTTP API kept `%zz` as sent and served the request (signed over the raw text).
    @Test func theHTTPAPIAnswersBadPercentEncodingWith400NamingTheParameter() async throws {
        try await withServer { server in
            let app = server.configuration.app
            let request = signedGET(
                "/apps/\(app.id)/channels", app, parameters: ["filter_by_prefix": "presence-%zz"])
            let response = try await answer(request, port: server.port)
            #expect(response.status == 400)
            #expect(response.body.contains("Query parameter 'filter_by_prefix' is badly percent-encoded"))
        }
    }

    /// The HTTP API's rule is unchanged: a repeated name is a 400.
    @Test func theHTTPAPIAnswersARepeatedNameWith400() async throws {
        try await withServer { server in
            let app = server.configuration.app
            let request = signedGET(
                "/apps/\(app.id)/channels", app, parameters: ["filter_by_prefix": "a"], extra: ("filter_by_prefix", "b")
            )
            let response = try await answer(request, port: server.port)
            #expect(response.status == 400)
            #expect(response.body.contains("Query parameter 'filter_by_prefix' is given more than once"))
        }
    }

    /// `+` is a space, as SDKs that form-encode their query send it (Go's `url.Values`); a client that signed a
    /// literal `+` as itself still verifies, as before.
    @Test func aPlusIsASpaceAndALiteralPlusSignatureStillVerifies() async throws {
        try await withServer { server in
            let app = server.configuration.app
            let path = "/apps/\(app.id)/channels"
            var spaced = SignedHTTPRequest(
                "GET", path, key: app.key, secret: app.secret, parameters: ["filter_by_prefix": "presence-a b"])
            spaced.query = spaced.query.map { ($0.0, $0.1.replacingOccurrences(of: " ", with: "+")) }
            let literal = SignedHTTPRequest(
                "GET", path, key: app.key, secret: app.secret, parameters: ["filter_by_prefix": "presence-a+b"])
            let answer1 = try await answer(spaced.text(close: true), port: server.port)
            #expect(answer1.status == 200)
            let answer2 = try await answer(literal.text(close: true), port: server.port)
            #expect(answer2.status == 200)
            // Escaped, a `+` is a `+`.
            var escaped = literal
            escaped.query = escaped.query.map { ($0.0, $0.1.replacingOccurrences(of: "+", with: "%2B")) }
            let answer3 = try await answer(escaped.text(close: true), port: server.port)
            #expect(answer3.status == 200)
        }
    }

    /// Was: the first `protocol` counted and the socket opened.
    @Test func aWebSocketUpgradeWithARepeatedNameIsAnswered400NamingIt() async throws {
        try await withServer { server in
            let key = server.configuration.app.key
            let port = server.port
            let response = try await offloaded {
                let socket = try RawSocket(port: port, timeout: 5)
                defer { socket.close() }
                try socket.send(
                    "GET /app/\(key)?protocol=7&client=js&protocol=6 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                return try socket.readHTTPResponse()
            }
            #expect(response.status == 400)
            #expect(response.body.contains("Query parameter 'protocol' is given more than once"))
            // A well-formed query still opens.
            let socket = try await offloaded { try RawSocket.webSocket(port: port, path: "/app/\(key)?protocol=7") }
            socket.close()
        }
    }

    /// Was: the form body's last `socket_id` counted and the subscription was signed.
    @Test func theDemoAuthEndpointAnswersARepeatedFormNameWith400() async throws {
        try await withServer { server in
            let body = "socket_id=1.1&channel_name=private-a&socket_id=2.2"
            let request =
                "POST /pusher/auth HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
            let response = try await answer(request, port: server.port)
            #expect(response.status == 400)
            #expect(response.body.contains("'socket_id' is given more than once"))
            // One of each is signed, `+` and escapes decoded.
            let good = "socket_id=1.1&channel_name=private-a%2Db"
            let signed = try await answer(
                request.replacingOccurrences(
                    of: "Content-Length: \(body.utf8.count)", with: "Content-Length: \(good.utf8.count)"
                )
                .replacingOccurrences(of: body, with: good), port: server.port)
            #expect(signed.status == 200)
            #expect(signed.body.contains("\"auth\""))
        }
    }
}
