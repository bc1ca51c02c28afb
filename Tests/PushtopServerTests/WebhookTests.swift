import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Webhooks")
struct WebhookTests {
    @Test func channelMemberClientAndCacheEventsArriveSigned() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        try await withServer({ $0.webhooks = WebhookConfiguration(urls: [receiver.url], batchWindow: 0.01, grace: 0) })
        { server in
            let (a, aID) = try await TestSocket.established(server.url())
            let (b, bID) = try await TestSocket.established(server.url())
            let dataA = #"{"user_id":"ann"}"#
            let dataB = #"{"user_id":"ben"}"#
            try await a.subscribe(
                "presence-room", auth: server.auth(socketID: aID, channel: "presence-room", channelData: dataA),
                channelData: dataA)
            _ = try await a.next(PusherEventName.subscriptionSucceeded)
            try await b.subscribe(
                "presence-room", auth: server.auth(socketID: bID, channel: "presence-room", channelData: dataB),
                channelData: dataB)
            _ = try await b.next(PusherEventName.subscriptionSucceeded)
            try await b.send(PusherMessage(event: "client-typing", channel: "presence-room", data: ["on": true]))
            _ = try await a.next("client-typing")
            await b.close()
            try await waitUntil("ben to leave") { await server.hub.users(in: "presence-room") == ["ann"] }
            await a.close()
            let (c, _) = try await TestSocket.established(server.url())
            try await c.subscribe("cache-prices")
            _ = try await c.next(PusherEventName.cacheMiss)
            await c.close()

            try await waitUntil(timeout: 10, "every webhook") {
                receiver.eventNames.filter { $0 == "channel_vacated" }.count == 2
            }
            #expect(
                receiver.eventNames == [
                    "channel_occupied", "member_added", "member_added", "client_event", "member_removed",
                    "member_removed", "channel_vacated", "channel_occupied", "cache_miss", "channel_vacated",
                ])
            let events = receiver.accepted.flatMap(\.events)
            let client = try #require(events.first { $0["name"]?.stringValue == "client_event" })
            #expect(client["channel"]?.stringValue == "presence-room")
            #expect(client["event"]?.stringValue == "client-typing")
            #expect(client["data"]?.stringValue == #"{"on":true}"#)
            #expect(client["socket_id"]?.stringValue == bID)
            #expect(client["user_id"]?.stringValue == "ben")
            #expect(events.first { $0["name"]?.stringValue == "member_added" }?["user_id"]?.stringValue == "ann")
            for request in receiver.accepted {
                #expect(request.key == server.configuration.app.key)
                #expect(
                    request.signature
                        == ChannelAuthSignature.hmacHex(
                            secret: server.configuration.app.secret, message: request.body))
                let time = try #require(JSONValue.parseIfJSON(request.body)?["time_ms"]?.numberValue)
                #expect(abs(time - Date().timeIntervalSince1970 * 1000) < 60_000)
            }
        }
    }

    @Test func aReloadWithinTheGraceSendsNeitherVacatedNorOccupied() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        // The premise is a reload within the grace: a grace several times what a reload takes on a loaded machine
        // (well under 0.1 s idle, 1.15 s seen on a busy 2-core runner), so that the premise holds there too.
        let grace = 5.0
        try await withServer({
            $0.webhooks = WebhookConfiguration(urls: [receiver.url], batchWindow: 0.01, grace: grace)
        }) { server in
            let (tab, _) = try await TestSocket.subscribed(server.url(), to: "dashboard")
            try await waitUntil(timeout: 10, "channel_occupied") { receiver.eventNames == ["channel_occupied"] }
            let left = ContinuousClock.now
            await tab.close()
            try await waitUntil("the tab to leave") { await server.hub.channelSummaries().isEmpty }
            let (reloaded, _) = try await TestSocket.subscribed(server.url(), to: "dashboard")
            let reloadTook = ContinuousClock.now - left
            try #require(reloadTook < .seconds(grace), "the premise: the reload came back within the grace")
            // A later departure is reported: by then the cancelled vacated would have been posted too.
            await reloaded.close()
            try await waitUntil(timeout: LoadedMachine.bound(grace), "the final channel_vacated") {
                receiver.eventNames.count == 2
            }
            #expect(ContinuousClock.now - left > .seconds(grace), "the vacated webhook waited for the grace")
            #expect(receiver.eventNames == ["channel_occupied", "channel_vacated"])
        }
    }

    @Test func aDepartureIsPostedOnlyAfterTheGrace() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        try await withServer({ $0.webhooks = WebhookConfiguration(urls: [receiver.url], batchWindow: 0.01, grace: 0.6) }
        ) {
            server in
            let (socket, id) = try await TestSocket.established(server.url())
            let data = #"{"user_id":"ann"}"#
            try await socket.subscribe(
                "presence-room",
                auth: server.auth(
                    socketID: id, channel: "presence-room",
                    channelData: data), channelData: data)
            _ = try await socket.next(PusherEventName.subscriptionSucceeded)
            try await waitUntil(timeout: 10, "member_added") { receiver.eventNames.count == 2 }
            let left = ContinuousClock.now
            await socket.close()
            try await waitUntil(timeout: 10, "member_removed and channel_vacated") { receiver.eventNames.count == 4 }
            #expect(ContinuousClock.now - left >= .milliseconds(600))
            #expect(receiver.eventNames == ["channel_occupied", "member_added", "member_removed", "channel_vacated"])
        }
    }

    @Test func failedPostsAreRetriedWithoutHoldingUpDelivery() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        receiver.failNext([500, 503, 500])
        let configuration = WebhookConfiguration(urls: [receiver.url], initialBackoff: 0.3, batchWindow: 0.01)
        try await withServer({ $0.webhooks = configuration }) { server in
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "orders")
            // While the receiver refuses, events still reach subscribers at once.
            _ = try await server.api.trigger(channels: ["orders"], event: "placed", data: "{}")
            _ = try await socket.next("placed", channel: "orders")
            #expect(receiver.accepted.isEmpty)
            try await waitUntil(timeout: 10, "the retried batch") { !receiver.accepted.isEmpty }
            #expect(receiver.attemptCount == 4)
            #expect(receiver.eventNames == ["channel_occupied"])
            await socket.close()
        }
    }

    @Test func aBatchIsDroppedAfterTheLastAttempt() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        receiver.failNext([500, 500])
        let configuration = WebhookConfiguration(
            urls: [receiver.url], maxAttempts: 2, initialBackoff: 0.05,
            batchWindow: 0.01)
        try await withServer({ $0.webhooks = configuration }) { server in
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "first")
            try await waitUntil(timeout: 10, "two attempts") { receiver.attemptCount == 2 }
            try await socket.subscribe("second")
            try await waitUntil(timeout: 10, "the next batch") { !receiver.accepted.isEmpty }
            #expect(receiver.eventNames == ["channel_occupied"])
            #expect(receiver.accepted.first?.events.first?["channel"]?.stringValue == "second")
            await socket.close()
        }
    }

    @Test func retriesStopAtTheEndOfTheRetryWindow() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        receiver.failNext(Array(repeating: 500, count: 30))
        // 20 attempts with back-off from 0.2 s would take minutes; the 0.5 s window allows two or three.
        let configuration = WebhookConfiguration(
            urls: [receiver.url], retryFor: 0.5, initialBackoff: 0.2,
            batchWindow: 0.01)
        try await withServer({ $0.webhooks = configuration }) { server in
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "windowed")
            try await waitUntil(timeout: 10, "a first attempt") { receiver.attemptCount >= 1 }
            try await socket.subscribe("after")
            // Batches go out one after the other: the next one is tried only once the first was given up.
            try await waitUntil(timeout: 15, "the next batch") {
                receiver.attemptedBodies.contains { $0.contains("\"after\"") }
            }
            let first = receiver.attemptedBodies.filter { $0.contains("\"windowed\"") }.count
            #expect((1...3).contains(first))
            await socket.close()
        }
    }

    @Test func theChannelsAShutdownVacatesAreReportedBeforeItReturns() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        try await withServer({ $0.webhooks = WebhookConfiguration(urls: [receiver.url], batchWindow: 0.01) }) {
            server in
            _ = try await TestSocket.subscribed(server.url(), to: "last-orders")  // open until the server stops
            try await waitUntil(timeout: 10, "channel_occupied") { receiver.eventNames == ["channel_occupied"] }
        }
        #expect(receiver.eventNames == ["channel_occupied", "channel_vacated"])
    }
}
