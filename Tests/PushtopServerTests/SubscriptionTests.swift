import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Subscriptions")
struct SubscriptionTests {
    @Test func publicChannelReceivesTriggeredEventsWithStringData() async throws {
        try await withServer { server in
            let (socket, _) = try await TestSocket.established(server.url())
            try await socket.subscribe("ticker")
            let ok = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "ticker")
            #expect(ok.data == .string("{}"))
            _ = try await server.api.trigger(channels: ["ticker"], event: "price", data: "{\"p\":1}")
            let event = try await socket.next("price", channel: "ticker")
            #expect(event.data == .string("{\"p\":1}"))
            await socket.close()
        }
    }

    @Test func privateChannelNeedsAValidSignature() async throws {
        try await withServer { server in
            let (socket, socketID) = try await TestSocket.established(server.url())
            try await socket.subscribe("private-a", auth: "pushtop-key:" + String(repeating: "0", count: 64))
            let error = try await socket.next(PusherEventName.error)
            #expect(error.data?["code"] == .null)
            #expect(error.data?["message"]?.stringValue?.hasPrefix("Invalid signature") == true)
            let channelError = try await socket.next(PusherEventName.subscriptionError, channel: "private-a")
            #expect(channelError.dataJSON?["status"]?.intValue == 401)

            try await socket.subscribe("private-b")
            _ = try await socket.next(PusherEventName.subscriptionError, channel: "private-b")

            try await socket.subscribe("private-a", auth: server.auth(socketID: socketID, channel: "private-a"))
            _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "private-a")
            // A signature for another socket is refused.
            try await socket.subscribe("private-c", auth: server.auth(socketID: "1.2", channel: "private-c"))
            _ = try await socket.next(PusherEventName.subscriptionError, channel: "private-c")
            await socket.close()
        }
    }

    @Test func invalidChannelNamesAndDuplicateSubscriptionsAreRefused() async throws {
        try await withServer { server in
            let (socket, _) = try await TestSocket.established(server.url())
            try await socket.subscribe("bad channel!")
            try await socket.nextError(containing: "Invalid channel name")
            try await socket.subscribe(String(repeating: "x", count: 165))
            _ = try await socket.next(PusherEventName.error)

            try await socket.subscribe("chat")
            _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: "chat")
            try await socket.subscribe("chat")
            let duplicate = try await socket.next(PusherEventName.error)
            #expect(duplicate.data?["message"]?.stringValue == "Existing subscription to channel chat")
            await socket.close()
        }
    }

    @Test func presenceRosterJoinsAndLeaves() async throws {
        try await withServer { server in
            func join(_ user: String, name: String) async throws -> (TestSocket, PusherMessage) {
                let (socket, socketID) = try await TestSocket.established(server.url())
                let data = "{\"user_id\":\"\(user)\",\"user_info\":{\"name\":\"\(name)\"}}"
                try await socket.subscribe(
                    "presence-room", auth: server.auth(socketID: socketID, channel: "presence-room", channelData: data),
                    channelData: data)
                return (socket, try await socket.next(PusherEventName.subscriptionSucceeded, channel: "presence-room"))
            }
            let (alice, first) = try await join("alice", name: "Alice")
            let presence = try #require(first.dataJSON?["presence"])
            #expect(presence["count"]?.intValue == 1)
            #expect(presence["ids"] == ["alice"])
            #expect(presence["hash"]?["alice"]?["name"] == "Alice")

            let (bob, second) = try await join("bob", name: "Bob")
            #expect(second.dataJSON?["presence"]?["count"]?.intValue == 2)
            let added = try await alice.next(PusherEventName.memberAdded, channel: "presence-room")
            #expect(added.dataJSON?["user_id"] == "bob")
            #expect(added.dataJSON?["user_info"]?["name"] == "Bob")

            // Bob on a second connection is still one member: no second member_added, count stays 2.
            let (bob2, third) = try await join("bob", name: "Bob")
            #expect(third.dataJSON?["presence"]?["count"]?.intValue == 2)
            #expect(await server.hub.users(in: "presence-room") == ["alice", "bob"])

            await bob.close()
            // Once the hub has let Bob's first connection go, a member joining after it is announced to Alice after
            // any member_removed that close could have caused.
            try await waitUntil("bob's first connection to end") { await server.hub.connectionCount == 2 }
            let (carol, _) = try await join("carol", name: "Carol")
            let carolAdded = try await alice.next(PusherEventName.memberAdded, channel: "presence-room")
            #expect(carolAdded.dataJSON?["user_id"] == "carol")
            #expect(await alice.all(PusherEventName.memberRemoved).isEmpty)
            #expect(await alice.all(PusherEventName.memberAdded).count == 2)
            await carol.close()
            let carolRemoved = try await alice.next(PusherEventName.memberRemoved, channel: "presence-room")
            #expect(carolRemoved.dataJSON?["user_id"] == "carol")
            await bob2.close()
            let removed = try await alice.next(PusherEventName.memberRemoved, channel: "presence-room")
            #expect(removed.dataJSON?["user_id"] == "bob")
            #expect(await server.hub.users(in: "presence-room") == ["alice"])
            await alice.close()
        }
    }

    @Test func presenceChannelEnforcesMemberLimitAndUserInfoSize() async throws {
        try await withServer({ $0.limits.maxPresenceMembers = 2 }) { server in
            // One after another: each connection is served on its own event loop, so subscribes sent at once can be
            // taken in any order, and which one finds the channel full is then a race.
            var sockets: [TestSocket] = []
            for user in ["u1", "u2", "u3"] {
                let (socket, socketID) = try await TestSocket.established(server.url())
                let data = "{\"user_id\":\"\(user)\"}"
                try await socket.subscribe(
                    "presence-full", auth: server.auth(socketID: socketID, channel: "presence-full", channelData: data),
                    channelData: data)
                sockets.append(socket)
                if user != "u3" { _ = try await socket.next(PusherEventName.subscriptionSucceeded) }
            }
            let refused = try await sockets[2].next(PusherEventName.subscriptionError, channel: "presence-full")
            #expect(refused.dataJSON?["status"]?.intValue == 403)

            let (big, socketID) = try await TestSocket.established(server.url())
            let data = "{\"user_id\":\"x\",\"user_info\":{\"bio\":\"\(String(repeating: "a", count: 2000))\"}}"
            try await big.subscribe(
                "presence-other", auth: server.auth(socketID: socketID, channel: "presence-other", channelData: data),
                channelData: data)
            let tooBig = try await big.next(PusherEventName.subscriptionError, channel: "presence-other")
            #expect(tooBig.dataJSON?["status"]?.intValue == 413)
            for socket in sockets + [big] { await socket.close() }
        }
    }

    @Test func subscriptionCountIsSentToSubscribers() async throws {
        try await withServer { server in
            let (a, _) = try await TestSocket.established(server.url())
            try await a.subscribe("counted")
            let one = try await a.next(PusherEventName.subscriptionCount, channel: "counted")
            #expect(one.dataJSON?["subscription_count"]?.intValue == 1)
            let (b, _) = try await TestSocket.established(server.url())
            try await b.subscribe("counted")
            let two = try await a.next(PusherEventName.subscriptionCount, channel: "counted")
            #expect(two.dataJSON?["subscription_count"]?.intValue == 2)
            await b.close()
            let back = try await a.next(PusherEventName.subscriptionCount, channel: "counted")
            #expect(back.dataJSON?["subscription_count"]?.intValue == 1)
            await a.close()
        }
    }

    @Test func cacheChannelReplaysTheLastEventOrSaysCacheMiss() async throws {
        try await withServer { server in
            let (a, _) = try await TestSocket.subscribed(server.url(), to: "cache-prices")
            _ = try await a.next(PusherEventName.cacheMiss, channel: "cache-prices")
            _ = try await server.api.trigger(channels: ["cache-prices"], event: "tick", data: "{\"v\":42}")
            let (b, _) = try await TestSocket.established(server.url())
            try await b.subscribe("cache-prices")
            let replay = try await b.next("tick", channel: "cache-prices")
            #expect(replay.data == .string("{\"v\":42}"))
            #expect(await b.all(PusherEventName.cacheMiss).isEmpty)
            await a.close()
            await b.close()
        }
    }

    @Test func unsubscribeStopsDelivery() async throws {
        try await withServer { server in
            let (socket, _) = try await TestSocket.subscribed(server.url(), to: "news")
            try await socket.send("{\"event\":\"pusher:unsubscribe\",\"data\":{\"channel\":\"news\"}}")
            try await waitUntil("the channel to empty") {
                await server.hub.channelSummary("news").subscriptionCount == 0
            }
            _ = try await server.api.trigger(channels: ["news"], event: "story", data: "{}")
            try await socket.roundTrip()
            #expect(await socket.all("story").isEmpty)
            await socket.close()
        }
    }
}
