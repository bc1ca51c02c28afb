import AsyncHTTPClient
import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("HTTP API")
struct HTTPAPITests {
    @Test func triggerToSeveralChannelsExcludingTheSender() async throws {
        try await withServer { server in
            let (a, socketA) = try await TestSocket.established(server.url())
            let (b, _) = try await TestSocket.established(server.url())
            for socket in [a, b] {
                try await socket.subscribe("one")
                try await socket.subscribe("two")
                _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "two")
            }
            let response = try await server.api.trigger(
                channels: ["one", "two"], event: "hello", data: "{\"x\":1}", socketID: socketA,
                info: ["subscription_count"])
            #expect(response.json?["channels"]?["one"]?["subscription_count"]?.intValue == 2)
            _ = try await b.next("hello", channel: "one")
            _ = try await b.next("hello", channel: "two")
            try await a.roundTrip()
            #expect(await a.all("hello").isEmpty)
            await a.close()
            await b.close()
        }
    }

    @Test func batchEventsAreDeliveredAndLimitedToTen() async throws {
        try await withServer { server in
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "b1")
            let response = try await server.api.triggerBatch([
                PusherBatchEvent(channel: "b1", name: "e1", data: "1", info: ["subscription_count"]),
                PusherBatchEvent(channel: "b2", name: "e2", data: "2"),
            ])
            #expect(response.json?["batch"]?.arrayValue?.first?["subscription_count"]?.intValue == 1)
            _ = try await socket.next("e1", channel: "b1")

            let eleven = (0..<11).map { PusherBatchEvent(channel: "b1", name: "e\($0)", data: "") }
            await #expect(throws: PusherAPIError.self) { _ = try await server.api.triggerBatch(eleven) }
            do {
                _ = try await server.api.triggerBatch(eleven)
            } catch let error as PusherAPIError {
                #expect(error == .status(code: 400, message: "Batch of 11 events: the limit is 10 per request\n"))
            }
            await socket.close()
        }
    }

    @Test func limitsAreEnforcedWithPushersStatuses() async throws {
        try await withServer { server in
            let big = String(repeating: "x", count: 10_241)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await server.api.trigger(channels: ["c"], event: "e", data: big)
                } == 413)
            let many = (0...100).map { "c\($0)" }
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await server.api.trigger(channels: many, event: "e", data: "")
                } == 400)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await server.api.trigger(channels: ["bad name"], event: "e", data: "")
                } == 400)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await server.api.trigger(channels: ["c"], event: String(repeating: "e", count: 201), data: "")
                } == 400)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await server.api.trigger(channels: ["c"], event: "e", data: "", socketID: "abc")
                } == 400)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await server.api.trigger(
                        channels: ["c"], event: "e", data: String(repeating: "x", count: 10_240))
                } == 200)
        }
    }

    @Test func channelsInfoAndUsers() async throws {
        try await withServer { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            let data = "{\"user_id\":\"u1\"}"
            try await socket.subscribe(
                "presence-x", auth: server.auth(socketID: socketID, channel: "presence-x", channelData: data),
                channelData: data)
            try await socket.subscribe("public-y")
            _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "public-y")

            let all = try await server.api.channels()
            #expect(all.json?["channels"]?.objectValue?.keys.sorted() == ["presence-x", "public-y"])
            let presence = try await server.api.channels(prefix: "presence-", info: ["user_count"])
            #expect(presence.json?["channels"]?["presence-x"]?["user_count"]?.intValue == 1)
            await #expect(throws: PusherAPIError.self) { _ = try await server.api.channels(info: ["user_count"]) }

            let one = try await server.api.channel("presence-x", info: ["user_count", "subscription_count"])
            #expect(one.json?["occupied"] == true)
            #expect(one.json?["user_count"]?.intValue == 1)
            #expect(one.json?["subscription_count"]?.intValue == 1)
            let empty = try await server.api.channel("nobody-here")
            #expect(empty.json?["occupied"] == false)

            let users = try await server.api.users(in: "presence-x")
            #expect(users.json == ["users": [["id": "u1"]]])
            await #expect(throws: PusherAPIError.self) { _ = try await server.api.users(in: "public-y") }
            await socket.close()
        }
    }

    /// Sends a request signed by hand, so a test can break one part of the signing.
    func raw(
        _ server: EmbeddedServer, method: String = "POST", path: String? = nil,
        body: String = "{\"name\":\"e\",\"channels\":[\"c\"],\"data\":\"\"}",
        secret: String? = nil, timestamp: Int = Int(Date().timeIntervalSince1970),
        sentBody: String? = nil, tamper: (inout [String: String]) -> Void = { _ in }
    ) async throws -> (Int, String) {
        let fullPath = path ?? "/apps/\(server.configuration.app.id)/events"
        var parameters = APIRequestSignature.sign(
            method: method, path: fullPath, key: server.configuration.app.key,
            secret: secret ?? server.configuration.app.secret, body: Array(body.utf8), timestamp: timestamp)
        tamper(&parameters)
        let query = parameters.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)\(fullPath)?\(query)")
        request.method = .RAW(value: method)
        request.body = .bytes(Array((sentBody ?? body).utf8))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test func badSignaturesAreRefusedWithAClearMessage() async throws {
        try await withServer { server in
            let ok = try await raw(server)
            #expect(ok.0 == 200)

            let wrongSecret = try await raw(server, secret: "guess")
            #expect(wrongSecret.0 == 401)
            #expect(wrongSecret.1.contains("Invalid signature"))

            let stale = try await raw(server, timestamp: Int(Date().timeIntervalSince1970) - 601)
            #expect(stale.0 == 401)
            #expect(stale.1.contains("Timestamp expired"))

            // Signed with the secret, but over another body: the owner's mistake, 400.
            let wrongBody = try await raw(server, sentBody: #"{"name":"f","channels":["c"],"data":""}"#)
            #expect(wrongBody.0 == 400)
            #expect(wrongBody.1.contains("body_md5"))

            // A body_md5 changed after signing: the signature no longer holds, 401 (who is asking comes first).
            let tampered = try await raw(server) { $0["body_md5"] = String(repeating: "0", count: 32) }
            #expect(tampered.0 == 401)
            #expect(tampered.1.contains("Invalid signature"))

            let wrongKey = try await raw(server) { $0["auth_key"] = "other" }
            #expect(wrongKey.0 == 401)

            let missing = try await raw(server) { $0["auth_signature"] = nil }
            #expect(missing.0 == 401)

            let unknownApp = try await raw(server, path: "/apps/999/events")
            #expect(unknownApp.0 == 404)
        }
    }
}
