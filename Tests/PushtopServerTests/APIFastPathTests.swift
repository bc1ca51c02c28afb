import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

/// The HTTP API's event-loop fast path (`POST /apps/{id}/events`, `/batch_events`) over raw keep-alive connections:
/// it answers as the router does, and leaves everything else to the router on the same connection.
@Suite("HTTP API fast path")
struct APIFastPathTests {
    /// A signed request as text.
    static func request(
        _ server: EmbeddedServer, _ method: String, _ path: String, body: String? = nil,
        query: [String: String] = [:], close: Bool = false
    ) -> String {
        let app = server.configuration.app
        let bytes = body.map { Array($0.utf8) }
        let parameters = APIRequestSignature.sign(
            method: method, path: path, key: app.key, secret: app.secret,
            body: bytes, parameters: query)
        let target =
            path + "?" + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if close { text += "Connection: close\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        return text + "\r\n" + (body ?? "")
    }

    /// Sends each request on one connection and reads each answer: status line, body.
    static func exchange(_ requests: [String], port: Int) async throws -> [(status: String, body: String)] {
        try await offloaded {
            let socket = try RawSocket(port: port, timeout: 5)
            defer { socket.close() }
            var answers: [(String, String)] = []
            for request in requests {
                try socket.send(request)
                let head = try socket.readHTTPHead()
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                let body = String(decoding: try socket.readBytes(length), as: UTF8.self)
                answers.append((head.components(separatedBy: "\r\n")[0], body))
            }
            return answers
        }
    }

    @Test func eventsAndOtherRoutesShareOneKeepAliveConnection() async throws {
        try await withServer({ $0.apiFastPath = true }) { server in
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "fast")
            let events = #"{"name":"tick","channels":["fast"],"data":"1"}"#
            let answers = try await Self.exchange(
                [
                    Self.request(server, "POST", "/apps/\(server.configuration.app.id)/events", body: events),
                    Self.request(server, "GET", "/apps/\(server.configuration.app.id)/channels"),
                    Self.request(
                        server, "POST", "/apps/\(server.configuration.app.id)/batch_events",
                        body: #"{"batch":[{"channel":"fast","name":"tock","data":"2"}]}"#),
                    Self.request(
                        server, "POST", "/apps/\(server.configuration.app.id)/events",
                        body: #"{"name":"tick","channels":["fast"],"data":"3","info":"subscription_count"}"#),
                ], port: server.port)
            #expect(answers.map(\.status) == Array(repeating: "HTTP/1.1 200 OK", count: 4))
            #expect(answers[0].body == "{}")
            #expect(answers[1].body.contains(#""fast""#), "the router answered the channel list: \(answers[1].body)")
            #expect(answers[2].body == "{}")
            #expect(answers[3].body == #"{"channels":{"fast":{"subscription_count":1}}}"#, "info goes to the router")
            #expect(try await socket.next("tick").dataText == "1")
            #expect(try await socket.next("tock").dataText == "2")
            #expect(try await socket.next("tick").dataText == "3")
            await socket.close()
        }
    }

    @Test func refusalsAreTheRoutersWithTheSameStatusAndMessage() async throws {
        for fastPath in [true, false] {
            try await withServer({ $0.apiFastPath = fastPath }) { server in
                let id = server.configuration.app.id
                let big = #"{"name":"x","channels":["a"],"data":""# + String(repeating: "x", count: 10_241) + "\"}"
                var unsigned = Self.request(
                    server, "POST", "/apps/\(id)/events", body: #"{"name":"x","channels":["a"]}"#)
                unsigned = unsigned.replacingOccurrences(of: "auth_signature=", with: "auth_signature=0")
                let answers = try await Self.exchange(
                    [
                        Self.request(server, "POST", "/apps/\(id)/events", body: big),
                        Self.request(server, "POST", "/apps/\(id)/events", body: "{not json"),
                        Self.request(
                            server, "POST", "/apps/\(id)/events", body: #"{"name":"x","channels":["bad name!"]}"#),
                        Self.request(
                            server, "POST", "/apps/\(id)/batch_events",
                            body: #"{"batch":["#
                                + (1...11).map { _ in #"{"channel":"a","name":"x"}"# }.joined(separator: ",") + "]}"),
                        unsigned,
                    ], port: server.port)
                #expect(
                    answers.map { $0.status.prefix(12) } == [
                        "HTTP/1.1 413", "HTTP/1.1 400", "HTTP/1.1 400",
                        "HTTP/1.1 400", "HTTP/1.1 401",
                    ], "fast path \(fastPath)")
                #expect(answers[0].body.contains("10240"), "\(answers[0].body)")
                #expect(answers[4].body.contains("Invalid signature"), "\(answers[4].body)")
            }
        }
    }

    @Test func anUnknownAppIDIsTheRouters404() async throws {
        try await withServer({ $0.apiFastPath = true }) { server in
            let answers = try await Self.exchange(
                [
                    Self.request(server, "POST", "/apps/999/events", body: #"{"name":"x","channels":["a"]}"#)
                ], port: server.port)
            #expect(answers[0].status.hasPrefix("HTTP/1.1 404"))
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withServer({ $0.apiFastPath = true }) { server in
            let request = Self.request(
                server, "POST", "/apps/\(server.configuration.app.id)/events",
                body: #"{"name":"x","channels":["a"]}"#, close: true)
            let (bytes, closed) = try await offloaded {
                let socket = try RawSocket(port: server.port, timeout: 5)
                try socket.send(request)
                return socket.readToEnd()
            }
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            #expect(closed)
        }
    }
}
