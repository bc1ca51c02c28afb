import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

/// The HTTP API over raw keep-alive connections: one path for every route, answers in request order when
/// requests are pipelined, and a connection's publishes reach subscribers in its request order.
@Suite("HTTP API order")
struct HTTPAPIOrderTests {
    static func signed(
        _ server: EmbeddedServer, _ method: String, _ path: String, body: String? = nil,
        parameters: [String: String] = [:]
    ) -> SignedHTTPRequest {
        SignedHTTPRequest(
            method, path, body: body, key: server.configuration.app.key, secret: server.configuration.app.secret,
            parameters: parameters)
    }

    static func request(
        _ server: EmbeddedServer, _ method: String, _ path: String, body: String? = nil,
        parameters: [String: String] = [:], close: Bool = false
    ) -> String {
        signed(server, method, path, body: body, parameters: parameters).text(close: close)
    }

    @Test func eventsAndOtherRoutesShareOneKeepAliveConnection() async throws {
        try await withServer { server in
            let id = server.configuration.app.id
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "fast")
            let answers = try await RawSocket.oneByOne(
                [
                    Self.request(
                        server, "POST", "/apps/\(id)/events", body: #"{"name":"tick","channels":["fast"],"data":"1"}"#),
                    Self.request(server, "GET", "/apps/\(id)/channels"),
                    "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
                    Self.request(
                        server, "POST", "/apps/\(id)/batch_events",
                        body: #"{"batch":[{"channel":"fast","name":"tock","data":"2"}]}"#),
                    Self.request(
                        server, "POST", "/apps/\(id)/events",
                        body: #"{"name":"tick","channels":["fast"],"data":"3","info":"subscription_count"}"#),
                ], port: server.port)
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200])
            #expect(answers[0].body == "{}")
            #expect(answers[1].body.contains(#""fast""#), "the channel list: \(answers[1].body)")
            #expect(answers[2].body.contains(#""status":"ok""#))
            #expect(answers[3].body == "{}")
            #expect(answers[4].body == #"{"channels":{"fast":{"subscription_count":1}}}"#)
            #expect(try await socket.next("tick").dataText == "1")
            #expect(try await socket.next("tock").dataText == "2")
            #expect(try await socket.next("tick").dataText == "3")
            await socket.close()
        }
    }

    @Test func aPipelinedQueryAndPublishAreAnsweredInRequestOrder() async throws {
        try await withServer { server in
            let id = server.configuration.app.id
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "fast")
            let pair = [
                Self.request(server, "GET", "/apps/\(id)/channels"),
                Self.request(server, "POST", "/apps/\(id)/events", body: #"{"name":"e","channels":["fast"]}"#),
            ]
            for attempt in 0..<20 {
                let answers = try await RawSocket.pipeline(pair, port: server.port)
                #expect(answers[0].body.hasPrefix(#"{"channels":"#), "attempt \(attempt): \(answers)")
                #expect(answers[1].body == "{}", "attempt \(attempt): \(answers)")
            }
            await socket.close()
        }
    }

    /// Random mixes of every kind of request, written at once, get the answers they get one by one.
    @Test func randomPipelinedMixesAnswerAsOneByOne() async throws {
        try await withServer { server in
            let id = server.configuration.app.id
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "mix")
            var badSignature = Self.signed(
                server, "POST", "/apps/\(id)/events", body: #"{"name":"x","channels":["mix"]}"#)
            badSignature.query = badSignature.query.map { $0.0 == "auth_signature" ? ($0.0, "0" + $0.1) : $0 }
            let kinds: [String] = [
                Self.request(server, "GET", "/apps/\(id)/channels"),
                Self.request(server, "GET", "/apps/\(id)/channels/mix", parameters: ["info": "subscription_count"]),
                Self.request(server, "POST", "/apps/\(id)/events", body: #"{"name":"a","channels":["mix"]}"#),
                Self.request(
                    server, "POST", "/apps/\(id)/events",
                    body: #"{"name":"b","channels":["mix"],"info":"subscription_count"}"#),
                Self.request(
                    server, "POST", "/apps/\(id)/batch_events",
                    body: #"{"batch":[{"channel":"mix","name":"c"},{"channel":"mix","name":"d"}]}"#),
                badSignature.text(),
                Self.request(server, "POST", "/apps/\(id)/events", body: "{not json"),
                "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
                Self.request(server, "GET", "/apps/999/channels"),
            ]
            var random = SplitMix(seed: 30)
            for round in 0..<20 {
                let mix = (0..<8).map { _ in kinds[Int(random.next() % UInt64(kinds.count))] }
                let alone = try await RawSocket.oneByOne(mix, port: server.port)
                let pipelined = try await RawSocket.pipeline(mix, port: server.port)
                #expect(
                    pipelined.map(\.status) == alone.map(\.status), "round \(round): \(pipelined) vs \(alone)")
                #expect(
                    zip(pipelined, alone).allSatisfy {
                        $0.body == $1.body || $0.body.contains(#""status":"ok""#)
                    }, "round \(round): \(pipelined) vs \(alone)")
            }
            await socket.close()
        }
    }

    /// Single events, batches and events asking for `info` (which need the hub's answer) arrive in request order.
    @Test func aConnectionsPublishesReachSubscribersInRequestOrder() async throws {
        try await withServer { server in
            let id = server.configuration.app.id
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "order")
            var requests: [String] = []
            var expected: [String] = []
            for n in stride(from: 0, to: 60, by: 3) {
                requests.append(
                    Self.request(
                        server, "POST", "/apps/\(id)/events",
                        body: #"{"name":"n","channels":["order"],"data":"\#(n)","info":"subscription_count"}"#))
                requests.append(
                    Self.request(
                        server, "POST", "/apps/\(id)/batch_events",
                        body: #"{"batch":[{"channel":"order","name":"n","data":"\#(n + 1)"}]}"#))
                requests.append(
                    Self.request(
                        server, "POST", "/apps/\(id)/events",
                        body: #"{"name":"n","channels":["order"],"data":"\#(n + 2)"}"#))
                expected += ["\(n)", "\(n + 1)", "\(n + 2)"]
            }
            let answers = try await RawSocket.pipeline(requests, port: server.port)
            #expect(answers.allSatisfy { $0.status == 200 })
            var received: [String] = []
            for _ in expected { received.append(try await socket.next("n").dataText ?? "") }
            #expect(received == expected)
            await socket.close()
        }
    }

    @Test func refusalsHavePushersStatusAndMessage() async throws {
        try await withServer { server in
            let id = server.configuration.app.id
            let big = #"{"name":"x","channels":["a"],"data":""# + String(repeating: "x", count: 10_241) + "\"}"
            var unsigned = Self.signed(server, "POST", "/apps/\(id)/events", body: #"{"name":"x","channels":["a"]}"#)
            unsigned.query = unsigned.query.map { $0.0 == "auth_signature" ? ($0.0, "0" + $0.1) : $0 }
            let answers = try await RawSocket.oneByOne(
                [
                    Self.request(server, "POST", "/apps/\(id)/events", body: big),
                    Self.request(server, "POST", "/apps/\(id)/events", body: "{not json"),
                    Self.request(server, "POST", "/apps/\(id)/events", body: #"{"name":"x","channels":["bad name!"]}"#),
                    Self.request(
                        server, "POST", "/apps/\(id)/batch_events",
                        body: #"{"batch":["#
                            + (1...11).map { _ in #"{"channel":"a","name":"x"}"# }.joined(separator: ",")
                            + "]}"),
                    unsigned.text(),
                    Self.request(server, "GET", "/apps/\(id)/events"),
                ], port: server.port)
            #expect(answers.map(\.status) == [413, 400, 400, 400, 401, 405])
            #expect(answers[0].body.contains("10240"), "\(answers[0].body)")
            #expect(answers[4].body.contains("Invalid signature"), "\(answers[4].body)")
        }
    }

    /// One query parser: a parameter given twice is refused, on every route (it would be signed one way and acted
    /// on another).
    @Test func aRepeatedQueryParameterIs400OnEveryRoute() async throws {
        try await withServer { server in
            let id = server.configuration.app.id
            var requests: [String] = []
            for (method, path, body) in [
                ("POST", "/apps/\(id)/events", #"{"name":"x","channels":["a"]}"#),
                ("POST", "/apps/\(id)/batch_events", #"{"batch":[{"channel":"a","name":"x"}]}"#),
                ("GET", "/apps/\(id)/channels", nil),
            ] {
                var twice = Self.signed(server, method, path, body: body)
                twice.query.append(twice.query.first { $0.0 == "auth_timestamp" }!)
                requests.append(twice.text())
                var info = Self.signed(server, method, path, body: body, parameters: ["info": "subscription_count"])
                info.query.insert(("info", "user_count"), at: 0)
                requests.append(info.text())
            }
            let answers = try await RawSocket.oneByOne(requests, port: server.port)
            #expect(answers.map(\.status) == Array(repeating: 400, count: requests.count), "\(answers)")
            #expect(answers.allSatisfy { $0.body.contains("more than once") }, "\(answers)")
        }
    }

    @Test func connectionCloseIsHonouredAfterEveryPipelinedAnswer() async throws {
        try await withServer { server in
            let id = server.configuration.app.id
            let requests = [
                Self.request(server, "GET", "/apps/\(id)/channels"),
                Self.request(
                    server, "POST", "/apps/\(id)/events", body: #"{"name":"x","channels":["a"]}"#, close: true),
                Self.request(server, "POST", "/apps/\(id)/events", body: #"{"name":"y","channels":["a"]}"#),
            ]
            let (bytes, closed) = try await offloaded {
                let socket = try RawSocket(port: server.port, timeout: 5)
                try socket.send(requests.joined())
                return socket.readToEnd()
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.components(separatedBy: "HTTP/1.1 200").count == 3, "two answers, then the close: \(text)")
            #expect(text.hasPrefix("HTTP/1.1 200") && text.contains(#"{"channels":"#))
            #expect(closed)
        }
    }

    /// A body sent in chunks (`Transfer-Encoding: chunked`, as streaming clients send it) is read whole.
    @Test func aChunkedBodyIsReadWhole() async throws {
        try await withServer { server in
            let id = server.configuration.app.id
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "chunks")
            let body = #"{"name":"c","channels":["chunks"],"data":""# + String(repeating: "x", count: 5000) + "\"}"
            let signed = Self.signed(server, "POST", "/apps/\(id)/events", body: body)
            let target = signed.path + "?" + signed.query.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            let bytes = Array(body.utf8)
            var request = "POST \(target) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            for start in stride(from: 0, to: bytes.count, by: 1000) {
                let chunk = bytes[start..<min(start + 1000, bytes.count)]
                request += String(chunk.count, radix: 16) + "\r\n" + String(decoding: chunk, as: UTF8.self) + "\r\n"
            }
            request += "0\r\n\r\n"
            let answers = try await RawSocket.oneByOne([request], port: server.port)
            #expect(answers.map(\.status) == [200], "\(answers)")
            #expect(try await socket.next("c").dataText?.count == 5000)
            await socket.close()
        }
    }
}
