import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

/// `pushtop serve`'s debug feed (`GET /apps/{id}/console`), read from the real binary as any SSE client reads it.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServeConsoleFeedTests {
    let key = ServeNode.key, secret = ServeNode.secret, appID = ServeNode.appID

    func feed(_ node: ServeNode, types: String? = nil, receiveBuffer: Int? = nil) async throws
        -> ServeConsoleFeedReader
    {
        let reader = try ServeConsoleFeedReader(
            port: node.port,
            target: ServeConsoleFeedReader.target(appID: appID, key: key, secret: secret, types: types),
            receiveBuffer: receiveBuffer)
        try await waitUntil("the feed's hello") { reader.hello != nil || reader.ended }
        try #require(reader.status == 200, "\(reader.head)")
        return reader
    }

    /// `POST` (or `GET`) to the HTTP API, signed (with a timestamp `skew` seconds in the past); the status code.
    @discardableResult
    func api(
        _ node: ServeNode, _ method: String, _ path: String, body: String? = nil, skew: Int = 0
    ) async throws -> Int {
        let bytes = body.map { Array($0.utf8) }
        let signed = APIRequestSignature.sign(
            method: method, path: path, key: key, secret: secret, body: bytes,
            timestamp: Int(Date().timeIntervalSince1970) - skew)
        let query = signed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        var request = "\(method) \(path)?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        let (status, _) = try await RawSocket.exchange(Array(request.utf8), port: node.port)
        return Int(status.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    func socketURL(_ node: ServeNode) -> String {
        "ws://127.0.0.1:\(node.port)/app/\(key)?protocol=7&client=js&version=8.6.0"
    }

    @Test func aListenerSeesEveryServerSideTypeFromARealScenario() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        receiver.failNext([500])
        let node = try await ServeNode.start(extra: ["--webhook", receiver.url, "--webhook-grace", "0"])
        // The node first (its last webhooks reach a receiver that still listens), then the receiver.
        defer {
            Task {
                await node.stop()
                receiver.stop()
            }
        }
        let feed = try await feed(node)
        defer { feed.stop() }
        #expect(feed.hello?["app_id"]?.stringValue == appID)
        #expect(feed.hello?["connections"]?.intValue == 0)
        #expect(feed.hello?["cluster"]?.boolValue == false)

        let (alice, aliceID) = try await TestSocket.established(socketURL(node))
        let (bob, bobID) = try await TestSocket.established(socketURL(node))
        try await alice.subscribe("news")
        _ = try await alice.next(PusherEventName.subscriptionSucceeded, channel: "news")
        for socket in [(alice, aliceID), (bob, bobID)] {
            let auth = ChannelAuthSignature.auth(key: key, secret: secret, socketID: socket.1, channel: "private-room")
            try await socket.0.subscribe("private-room", auth: auth)
            _ = try await socket.0.next(PusherEventName.subscriptionSucceeded, channel: "private-room")
        }
        let channelData = #"{"user_id":"alice","user_info":{"name":"Alice"}}"#
        let presenceAuth = ChannelAuthSignature.auth(
            key: key, secret: secret, socketID: aliceID, channel: "presence-lobby", channelData: channelData)
        try await alice.subscribe("presence-lobby", auth: presenceAuth, channelData: channelData)
        _ = try await alice.next(PusherEventName.subscriptionSucceeded, channel: "presence-lobby")
        // A refused subscription (a wrong signature) and a refused client event (on a public channel).
        try await bob.subscribe("private-secret", auth: "\(key):0000")
        _ = try await bob.next(PusherEventName.subscriptionError, channel: "private-secret")
        try await alice.send(#"{"event":"client-typing","channel":"private-room","data":{"who":"alice"}}"#)
        _ = try await bob.next("client-typing", channel: "private-room")
        try await alice.send(#"{"event":"client-nope","channel":"news","data":{}}"#)
        _ = try await alice.next(PusherEventName.error)

        let big = String(repeating: "x", count: 3000)
        #expect(
            try await api(
                node, "POST", "/apps/\(appID)/events",
                body: #"{"name":"update","channels":["news"],"data":"\#(big)","socket_id":"\#(bobID)"}"#) == 200)
        #expect(
            try await api(
                node, "POST", "/apps/\(appID)/batch_events",
                body:
                    #"{"batch":[{"name":"b1","channel":"news","data":"1"},{"name":"b2","channel":"private-room","data":"2"}]}"#
            ) == 200)
        #expect(try await api(node, "GET", "/apps/\(appID)/channels", skew: 1000) == 401)
        await alice.close()

        let connection = try await feed.waitForRow("alice's connection") {
            $0.type == .connection && $0.socketID == aliceID
        }
        #expect(connection.clientLibrary == "js")
        #expect(connection.clientVersion == "8.6.0")
        #expect(connection.protocolVersion == 7)
        #expect(connection.tls == false)
        #expect(connection.remoteAddress?.hasPrefix("127.0.0.1:") == true)
        #expect(connection.node != nil && connection.appID == appID)
        try await feed.waitForRow("subscribed to presence-lobby as alice") {
            $0.type == .subscribed && $0.channel == "presence-lobby" && $0.userID == "alice"
        }
        try await feed.waitForRow("news occupied") { $0.type == .occupied && $0.channel == "news" }
        let added = try await feed.waitForRow("member_added") {
            $0.type == .presenceEvent && $0.event == "member_added" && $0.userID == "alice"
        }
        #expect(added.userInfo?["name"]?.stringValue == "Alice")
        let refused = try await feed.waitForRow("the refused subscription") {
            $0.type == .error && $0.channel == "private-secret"
        }
        #expect(refused.rule == "auth_signature" && refused.socketID == bobID)
        let clientEvent = try await feed.waitForRow("the client event") { $0.type == .clientEvent }
        #expect(clientEvent.channel == "private-room" && clientEvent.event == "client-typing")
        #expect(clientEvent.socketID == aliceID)
        let clientError = try await feed.waitForRow("the refused client event") { $0.type == .clientError }
        #expect(clientError.rule == "channel_type" && clientError.channel == "news")
        let single = try await feed.waitForRow("the API message") { $0.type == .apiMessage && $0.event == "update" }
        #expect(single.batch == false && single.dataBytes == 3000 && single.dataTruncated == true)
        #expect(single.data?.utf8.count == 1000)
        #expect(single.excludedSocketID == bobID)
        #expect(single.remoteAddress?.hasPrefix("127.0.0.1:") == true)
        let batched = try await feed.waitForRow("the batch's second event") {
            $0.type == .apiMessage && $0.event == "b2"
        }
        #expect(batched.batch == true && batched.channel == "private-room")
        let stale = try await feed.waitForRow("the stale timestamp") { $0.type == .apiError }
        #expect(stale.status == 401 && stale.rule == "timestamp")
        #expect(stale.reason?.contains("1000 seconds behind") == true, "\(stale.reason ?? "")")
        let gone = try await feed.waitForRow("alice's disconnection") {
            $0.type == .disconnection && $0.socketID == aliceID
        }
        #expect(gone.closedBy == .client)
        #expect(Set(gone.channels ?? []) == ["news", "private-room", "presence-lobby"])
        #expect(gone.lifetimeMs != nil)
        try await feed.waitForRow("alice unsubscribed from news") {
            $0.type == .unsubscribed && $0.channel == "news" && $0.socketID == aliceID
        }
        try await feed.waitForRow("news vacated") { $0.type == .vacated && $0.channel == "news" }
        try await feed.waitForRow("member_removed") {
            $0.type == .presenceEvent && $0.event == "member_removed" && $0.userID == "alice"
        }
        let failed = try await feed.waitForRow("the failed webhook") { $0.type == .webhookFailed }
        #expect(failed.status == 500 && failed.attempt == 1 && failed.url == receiver.url)
        #expect(failed.events?.contains("channel_occupied") == true)
        let sent = try await feed.waitForRow("the webhook sent on retry") { $0.type == .webhookSent }
        #expect(sent.status == 200 && (sent.attempt ?? 0) >= 1)

        let expected: Set<ConsoleRowType> = [
            .connection, .disconnection, .subscribed, .unsubscribed, .occupied, .vacated, .apiMessage, .clientEvent,
            .presenceEvent, .error, .apiError, .clientError, .webhookSent, .webhookFailed,
        ]
        #expect(expected.isSubset(of: Set(feed.rows.map(\.type))))
        #expect(!feed.body.contains(secret))
        await bob.close()
    }

    @Test func aTypesFilterKeepsOnlyThoseTypes() async throws {
        let node = try await ServeNode.start()
        defer { Task { await node.stop() } }
        let feed = try await feed(node, types: "disconnection")
        defer { feed.stop() }
        let (socket, socketID) = try await TestSocket.established(socketURL(node))
        await socket.close()
        try await feed.waitForRow("the disconnection") { $0.type == .disconnection && $0.socketID == socketID }
        #expect(feed.rows.allSatisfy { $0.type == .disconnection })
    }

    @Test func unsignedStaleAndForeignRequestsGet401AndNothingElse() async throws {
        let node = try await ServeNode.start()
        defer { Task { await node.stop() } }
        let targets = [
            "/apps/\(appID)/console",
            ServeConsoleFeedReader.target(
                appID: appID, key: key, secret: secret, timestamp: Int(Date().timeIntervalSince1970) - 3600),
            ServeConsoleFeedReader.target(appID: appID, key: key, secret: "not-the-secret"),
            ServeConsoleFeedReader.target(appID: appID, key: "other-key", secret: secret),
        ]
        for target in targets {
            let reader = try ServeConsoleFeedReader(port: node.port, target: target)
            defer { reader.stop() }
            try await waitUntil("an answer to \(target)") { !reader.body.isEmpty || reader.ended }
            #expect(reader.status == 401, "\(target): \(reader.head)")
            #expect(!reader.head.contains("event-stream"))
            #expect(JSONValue.parseIfJSON(reader.body)?["error"]?.stringValue != nil, "\(reader.body)")
            #expect(!reader.body.contains(secret))
            #expect(reader.hello == nil && reader.rows.isEmpty)
        }
        let unknown = try ServeConsoleFeedReader(
            port: node.port, target: ServeConsoleFeedReader.target(appID: "999", key: key, secret: secret))
        defer { unknown.stop() }
        try await waitUntil("an answer for an unknown app") { unknown.status != nil }
        #expect(unknown.status == 404)
    }

    @Test func aStuckListenerGetsAGapAndOtherClientsAreServedAtFullSpeed() async throws {
        let node = try await ServeNode.start()
        defer { Task { await node.stop() } }
        let stuck = try await feed(node, receiveBuffer: 4096)
        defer { stuck.stop() }
        stuck.pause()
        let (subscriber, _) = try await TestSocket.established(socketURL(node))
        try await subscriber.subscribe("busy")
        _ = try await subscriber.next(PusherEventName.subscriptionSucceeded, channel: "busy")
        // 1,300 requests of 10 events, 1 KB each: 13,000 rows (13 MB) for a listener that reads nothing.
        let data = String(repeating: "y", count: 1000)
        let event = #"{"name":"tick","channel":"busy","data":"\#(data)"}"#
        let body = #"{"batch":[\#(Array(repeating: event, count: 10).joined(separator: ","))]}"#
        for _ in 0..<1300 {
            #expect(try await api(node, "POST", "/apps/\(appID)/batch_events", body: body) == 200)
        }
        // Served in full while the listener still reads nothing: it holds up no one (what a user would notice; how
        // fast the machine went is the benchmarks' business).
        try await waitUntil(timeout: 30, "the subscriber to receive all 13,000 events") {
            await subscriber.all("tick", channel: "busy").count == 13_000
        }
        stuck.resume()
        let gap = try await stuck.waitForRow(timeout: 30, "a gap row") { $0.type == .gap }
        #expect((gap.dropped ?? 0) > 0)
        #expect(gap.node != nil)
        // The queue keeps the newest rows: the last event published arrives after the gap.
        try await waitUntil(timeout: 30, "the rows after the gap") {
            stuck.rows.filter { $0.type == .apiMessage }.count + (gap.dropped ?? 0) >= 13_000
        }
        // At most the queue's 10,000 rows and what the socket buffers held when it stopped reading got through.
        #expect(stuck.rows.filter { $0.type == .apiMessage }.count < 13_000)
        await subscriber.close()
    }

    @Test func aListenerOnOneNodeSeesTheOtherNodesRowsTaggedWithItsID() async throws {
        try #require(RedisServerProcess.isAvailable, "redis-server is needed (scripts/install-deps)")
        let redis = try await RedisServerProcess.start()
        defer { redis.stop() }
        let a = try await ServeNode.start(extra: ["--redis", redis.url, "--node-id", "node-a"])
        defer { Task { await a.stop() } }
        let b = try await ServeNode.start(extra: ["--redis", redis.url, "--node-id", "node-b"])
        defer { Task { await b.stop() } }
        let feed = try await feed(a)
        defer { feed.stop() }
        #expect(feed.hello?["node"]?.stringValue == "node-a")
        #expect(feed.hello?["cluster"]?.boolValue == true)
        // Node B learns within a second that someone listens; until then its rows are not forwarded.
        try await waitUntil(timeout: 10, "node B's rows to reach node A's listener") {
            let (probe, _) = try await TestSocket.established(socketURL(b))
            await probe.close()
            return feed.rows.contains { $0.type == .connection && $0.node == "node-b" }
        }
        let (socket, socketID) = try await TestSocket.established(socketURL(b))
        try await socket.subscribe("cluster-news")
        _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "cluster-news")
        #expect(
            try await api(
                b, "POST", "/apps/\(appID)/events", body: #"{"name":"hi","channel":"cluster-news","data":"1"}"#) == 200)
        let connection = try await feed.waitForRow("B's connection") {
            $0.type == .connection && $0.socketID == socketID
        }
        #expect(connection.node == "node-b" && connection.clientLibrary == "js")
        try await feed.waitForRow("B's subscription") {
            $0.type == .subscribed && $0.socketID == socketID && $0.node == "node-b"
        }
        try await feed.waitForRow("B's API message") {
            $0.type == .apiMessage && $0.event == "hi" && $0.node == "node-b"
        }
        // A's own rows are tagged A.
        let (local, localID) = try await TestSocket.established(socketURL(a))
        try await feed.waitForRow("A's connection") {
            $0.type == .connection && $0.socketID == localID && $0.node == "node-a"
        }
        #expect(!feed.body.contains(secret))
        await socket.close()
        await local.close()
    }
}
