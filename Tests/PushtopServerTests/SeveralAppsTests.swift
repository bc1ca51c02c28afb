import AsyncHTTPClient
import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

/// Two apps (or more) on one server: nothing of one reaches another, each app's limits are its own, and a reload
/// swaps them without dropping the others.
@Suite("Several apps")
struct SeveralAppsTests {
    static let shop = AppCredentials(id: "1", key: "shop-key", secret: "shop-secret")
    static let blog = AppCredentials(id: "2", key: "blog-key", secret: "blog-secret")

    static func url(_ server: EmbeddedServer, _ app: AppCredentials) -> String {
        "ws://127.0.0.1:\(server.port)/app/\(app.key)?client=test&version=1.0&protocol=7"
    }

    static func api(_ server: EmbeddedServer, _ app: AppCredentials) -> PusherAPIClient {
        PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: app.id, key: app.key, secret: app.secret, host: "127.0.0.1", port: server.port))
    }

    static func auth(_ app: AppCredentials, socketID: String, channel: String, channelData: String? = nil) -> String {
        ChannelAuthSignature.auth(
            key: app.key, secret: app.secret, socketID: socketID, channel: channel, channelData: channelData)
    }

    /// Joins `channel` (a presence channel when `user` is given) and waits for the answer.
    static func join(
        _ socket: TestSocket, _ socketID: String, _ app: AppCredentials, _ channel: String, user: String? = nil
    )
        async throws
    {
        if let user {
            let data = #"{"user_id":"\#(user)"}"#
            try await socket.subscribe(
                channel, auth: auth(app, socketID: socketID, channel: channel, channelData: data), channelData: data)
        } else if channel.hasPrefix("private-") {
            try await socket.subscribe(channel, auth: auth(app, socketID: socketID, channel: channel))
        } else {
            try await socket.subscribe(channel)
        }
        _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: channel)
    }

    @Test func twoAppsWithTheSameChannelNamesStayApart() async throws {
        let shopHooks = try await WebhookReceiver.started()
        let blogHooks = try await WebhookReceiver.started()
        defer { for receiver in [shopHooks, blogHooks] { receiver.stop() } }
        try await withServer({
            $0.apps = [
                AppSettings(
                    credentials: Self.shop,
                    webhooks: WebhookConfiguration(urls: [shopHooks.url], batchWindow: 0.01, grace: 0)),
                AppSettings(
                    credentials: Self.blog,
                    webhooks: WebhookConfiguration(urls: [blogHooks.url], batchWindow: 0.01, grace: 0)),
            ]
        }) { server in
            let (a, aID) = try await TestSocket.established(Self.url(server, Self.shop))
            let (b, bID) = try await TestSocket.established(Self.url(server, Self.blog))
            try await Self.join(a, aID, Self.shop, "chat")
            try await Self.join(b, bID, Self.blog, "chat")
            try await Self.join(a, aID, Self.shop, "presence-room", user: "ann")
            try await Self.join(b, bID, Self.blog, "presence-room", user: "bob")
            try await Self.join(a, aID, Self.shop, "private-talk")
            try await Self.join(b, bID, Self.blog, "private-talk")

            // Events: the shop's event reaches the shop's subscriber only.
            _ = try await Self.api(server, Self.shop).trigger(channels: ["chat"], event: "sale", data: "{}")
            _ = try await a.next("sale", channel: "chat")
            try await b.send(PusherMessage(event: "client-typing", channel: "private-talk", data: ["on": true]))
            try await b.send(#"{"event":"pusher:ping","data":{}}"#)
            _ = try await b.next(PusherEventName.pong)
            try await a.send(#"{"event":"pusher:ping","data":{}}"#)
            _ = try await a.next(PusherEventName.pong)
            #expect(await b.all("sale").isEmpty)
            #expect(await a.all("client-typing").isEmpty)
            #expect(await a.all(PusherEventName.memberAdded).isEmpty, "bob is in the blog's room, not the shop's")

            // Rosters, counts and channels through each app's own API.
            #expect(await server.hub(forAppID: "1")?.users(in: "presence-room") == ["ann"])
            #expect(await server.hub(forAppID: "2")?.users(in: "presence-room") == ["bob"])
            let shopUsers = try await Self.api(server, Self.shop).users(in: "presence-room")
            #expect(shopUsers.json?["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["ann"])
            let blogUsers = try await Self.api(server, Self.blog).users(in: "presence-room")
            #expect(blogUsers.json?["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["bob"])
            let shopChat = try await Self.api(server, Self.shop).channel("chat", info: ["subscription_count"])
            #expect(shopChat.json?["subscription_count"]?.intValue == 1)

            // An app's credentials do not open the other's API; an unknown id is 404, an unknown key 4001.
            let crossed = AppCredentials(id: Self.blog.id, key: Self.shop.key, secret: Self.shop.secret)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await Self.api(server, crossed).trigger(channels: ["chat"], event: "e", data: "")
                } == 401)
            let unknown = AppCredentials(id: "99", key: Self.shop.key, secret: Self.shop.secret)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await Self.api(server, unknown).trigger(channels: ["chat"], event: "e", data: "")
                } == 404)
            let stranger = try await TestSocket.connect(
                "ws://127.0.0.1:\(server.port)/app/nobody?client=test&version=1.0&protocol=7")
            #expect(try await stranger.waitForClose() == 4001)

            // Webhooks: each app's receiver hears its own app only, signed with that app's secret.
            await a.close()
            await b.close()
            try await waitUntil(timeout: 10, "both apps' channel_vacated") {
                shopHooks.eventNames.filter { $0 == "channel_vacated" }.count == 3
                    && blogHooks.eventNames.filter { $0 == "channel_vacated" }.count == 3
            }
            #expect(shopHooks.eventNames.contains("member_added"))
            #expect(!shopHooks.eventNames.contains("client_event"), "the client event was the blog's")
            #expect(blogHooks.eventNames.contains("client_event"))
            let shopUserIDs = shopHooks.accepted.flatMap(\.events).compactMap { $0["user_id"]?.stringValue }
            #expect(Set(shopUserIDs) == ["ann"])
            for request in shopHooks.accepted {
                #expect(request.key == Self.shop.key)
                #expect(
                    request.signature == ChannelAuthSignature.hmacHex(secret: Self.shop.secret, message: request.body))
            }
            for request in blogHooks.accepted {
                #expect(request.key == Self.blog.key)
            }
        }
    }

    @Test func eachAppsLimitsAreEnforcedWithPushersCodes() async throws {
        var tight = PusherLimits()
        tight.maxConnections = 2
        tight.clientEventsEnabled = false
        tight.maxPresenceMembers = 1
        tight.maxEventDataBytes = 100
        tight.apiRequestsPerSecond = 3
        let closed = AppCredentials(id: "3", key: "closed-key", secret: "closed-secret")
        try await withServer({
            $0.apps = [
                AppSettings(credentials: Self.shop, limits: tight),
                AppSettings(credentials: Self.blog),
                AppSettings(credentials: closed, enabled: false),
            ]
        }) { server in
            // Disabled: 4003 on connect, 403 from the API.
            let refused = try await TestSocket.connect(Self.url(server, closed))
            #expect(try await refused.waitForClose() == 4003)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await Self.api(server, closed).trigger(channels: ["c"], event: "e", data: "")
                } == 403)

            // Connection quota: the third connection of the shop gets 4004; the blog is not counted.
            let (a, aID) = try await TestSocket.established(Self.url(server, Self.shop))
            let (c, cID) = try await TestSocket.established(Self.url(server, Self.shop))
            let over = try await TestSocket.connect(Self.url(server, Self.shop))
            #expect(try await over.waitForClose() == 4004)
            let (blog, _) = try await TestSocket.established(Self.url(server, Self.blog))

            // Client events off: refused with pusher:error, not dropped silently.
            try await Self.join(a, aID, Self.shop, "private-talk")
            try await a.send(PusherMessage(event: "client-typing", channel: "private-talk", data: ["on": true]))
            let error = try await a.next(PusherEventName.error)
            #expect(error.dataJSON?["message"]?.stringValue?.contains("client events are disabled") == true)

            // One presence member at most.
            try await Self.join(a, aID, Self.shop, "presence-room", user: "ann")
            let data = #"{"user_id":"cat"}"#
            try await c.subscribe(
                "presence-room", auth: Self.auth(Self.shop, socketID: cID, channel: "presence-room", channelData: data),
                channelData: data)
            _ = try await c.next(PusherEventName.subscriptionError, channel: "presence-room")

            // Event bytes: 413 over the app's limit; the blog keeps Pusher's 10 KB. Then 429 over 3 requests/s.
            let big = String(repeating: "x", count: 101)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await Self.api(server, Self.blog).trigger(channels: ["c"], event: "e", data: big)
                } == 200)
            try await Task.sleep(for: .seconds(1.1))
            var statuses: [Int?] = []
            statuses.append(
                await apiStatus { () async throws(PusherAPIError) in
                    try await Self.api(server, Self.shop).trigger(channels: ["c"], event: "e", data: big)
                })
            for _ in 0..<5 {
                statuses.append(
                    await apiStatus { () async throws(PusherAPIError) in
                        try await Self.api(server, Self.shop).trigger(channels: ["c"], event: "e", data: "")
                    })
            }
            #expect(statuses.first == 413)
            #expect(statuses.contains(429))
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await Self.api(server, Self.blog).trigger(channels: ["c"], event: "e", data: "")
                } == 200)
            for socket in [a, c, blog] { await socket.close() }
        }
    }

    @Test func reloadAddsChangesAndRemovesAppsWithoutDroppingTheOthers() async throws {
        let news = AppCredentials(id: "4", key: "news-key", secret: "news-secret")
        try await withServer({
            $0.apps = [AppSettings(credentials: Self.shop), AppSettings(credentials: Self.blog)]
        }) { server in
            let (a, aID) = try await TestSocket.established(Self.url(server, Self.shop))
            let (b, _) = try await TestSocket.established(Self.url(server, Self.blog))
            try await Self.join(a, aID, Self.shop, "chat")

            var quota = PusherLimits()
            quota.maxConnections = 1
            let summary = try await server.reload(apps: [
                AppSettings(credentials: Self.shop, limits: quota), AppSettings(credentials: news),
            ])
            #expect(summary.changed == ["1"])
            #expect(summary.added == ["4"])
            #expect(summary.removed == ["2"])
            #expect(try await b.waitForClose() == 4003)

            // The shop's connection stayed (and still gets its events); its new quota applies to new ones.
            _ = try await Self.api(server, Self.shop).trigger(channels: ["chat"], event: "still-here", data: "{}")
            _ = try await a.next("still-here", channel: "chat")
            let over = try await TestSocket.connect(Self.url(server, Self.shop))
            #expect(try await over.waitForClose() == 4004)

            // The new app serves; the removed one is unknown.
            let (n, nID) = try await TestSocket.established(Self.url(server, news))
            try await Self.join(n, nID, news, "chat")
            _ = try await Self.api(server, news).trigger(channels: ["chat"], event: "hello", data: "{}")
            _ = try await n.next("hello", channel: "chat")
            #expect(await a.all("hello").isEmpty)
            let gone = try await TestSocket.connect(Self.url(server, Self.blog))
            #expect(try await gone.waitForClose() == 4001)
            #expect(
                await apiStatus { () async throws(PusherAPIError) in
                    try await Self.api(server, Self.blog).trigger(channels: ["c"], event: "e", data: "")
                } == 404)

            // A list that cannot be served changes nothing.
            await #expect(throws: EmbeddedServerError.self) {
                try await server.reload(apps: [
                    AppSettings(credentials: Self.shop), AppSettings(credentials: Self.shop),
                ])
            }
            #expect(server.servedApps.map(\.credentials.id) == ["1", "4"])
            await a.close()
            await n.close()
        }
    }

    @Test func metricsCarryTheAppLabel() async throws {
        try await withServer({
            $0.apps = [AppSettings(credentials: Self.shop), AppSettings(credentials: Self.blog)]
        }) { server in
            let (a, _) = try await TestSocket.established(Self.url(server, Self.shop))
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/metrics"), timeout: .seconds(10))
            let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(text.contains(#"pushtop_connections{app="1"} 1"#))
            #expect(text.contains(#"pushtop_connections{app="2"} 0"#))
            await a.close()
        }
    }

    @Test func subscriptionCountWebhooksGoToTheURLsThatAskForThem() async throws {
        let counts = try await WebhookReceiver.started()
        let everything = try await WebhookReceiver.started()
        defer { for receiver in [counts, everything] { receiver.stop() } }
        var webhooks = WebhookConfiguration(urls: [counts.url, everything.url], batchWindow: 0.01, grace: 0)
        webhooks.eventTypes[counts.url] = ["subscription_count"]
        try await withServer({ $0.apps = [AppSettings(credentials: Self.shop, webhooks: webhooks)] }) { server in
            let (a, aID) = try await TestSocket.established(Self.url(server, Self.shop))
            let (b, bID) = try await TestSocket.established(Self.url(server, Self.shop))
            try await Self.join(a, aID, Self.shop, "chat")
            try await Self.join(b, bID, Self.shop, "chat")
            try await waitUntil(timeout: 10, "two counts") {
                counts.accepted.flatMap(\.events).count == 2 && everything.eventNames.count == 1
            }
            let events = counts.accepted.flatMap(\.events)
            #expect(events.map { $0["name"]?.stringValue } == ["subscription_count", "subscription_count"])
            #expect(events.map { $0["subscription_count"]?.intValue } == [1, 2])
            #expect(events.allSatisfy { $0["channel"]?.stringValue == "chat" })
            #expect(everything.eventNames == ["channel_occupied"], "no subscription_count unless asked for")
            await a.close()
            await b.close()
        }
    }

    @Test func aReceiverThatIsDownHasABoundedQueueAndCountedDrops() async throws {
        let down = "http://127.0.0.1:\(try freeLocalPort())/hooks"
        let webhooks = WebhookConfiguration(
            urls: [down], maxAttempts: 1000, initialBackoff: 10, batchWindow: 0, maxBatchSize: 1, maxQueuedEvents: 3,
            grace: 0)
        try await withServer({
            $0.apps = [AppSettings(credentials: Self.shop, webhooks: webhooks), AppSettings(credentials: Self.blog)]
        }) { server in
            let (a, _) = try await TestSocket.established(Self.url(server, Self.shop))
            for index in 0..<10 {
                try await a.subscribe("room-\(index)")
                _ = try await a.next(PusherEventName.subscriptionSucceeded, channel: "room-\(index)")
            }
            let shop = try #require(server.hub(forAppID: "1"))
            try await waitUntil(timeout: 10, "drops to be counted") { await shop.statistics.webhookDrops >= 5 }
            #expect(await server.hub(forAppID: "2")?.statistics.webhookDrops == 0)
            await a.close()
        }
    }
}
