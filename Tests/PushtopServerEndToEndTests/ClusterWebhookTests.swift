import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Cluster: webhooks once per cluster, users across nodes", .serialized)
struct ClusterWebhookTests {
    @Test func occupancyAndMemberWebhooksFireOncePerCluster() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        try await withCluster(nodes: 3, { $0.webhooks = WebhookConfiguration(urls: [receiver.url], batchWindow: 0.01) })
        {
            cluster in
            var sockets: [TestSocket] = []
            for node in cluster.nodes {
                sockets.append(try await node.presenceSocket("presence-room", userID: "ann").0)
                sockets.append(try await node.subscribedSocket("news").0)
            }
            for socket in sockets { await socket.close() }
            try await waitUntil(timeout: 10, "the vacated webhooks") {
                receiver.eventNames.filter { $0 == "channel_vacated" }.count >= 2
            }
            // A marker after: a new channel's occupied webhook arrives after any duplicate would have.
            let (marker, _) = try await cluster[2].subscribedSocket("marker")
            try await waitUntil(timeout: 10, "the marker") {
                receiver.accepted.flatMap(\.events).contains { $0["channel"]?.stringValue == "marker" }
            }
            let events = receiver.accepted.flatMap(\.events).filter { $0["channel"]?.stringValue != "marker" }
            func count(_ name: String, _ channel: String) -> Int {
                events.filter { $0["name"]?.stringValue == name && $0["channel"]?.stringValue == channel }.count
            }
            #expect(count("channel_occupied", "news") == 1)
            #expect(count("channel_vacated", "news") == 1)
            #expect(count("channel_occupied", "presence-room") == 1)
            #expect(count("channel_vacated", "presence-room") == 1)
            #expect(count("member_added", "presence-room") == 1)
            #expect(count("member_removed", "presence-room") == 1)
            await marker.close()
        }
    }

    @Test func subscriptionCountWebhooksFireOncePerChangeAcrossTheCluster() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        defer { receiver.stop() }
        try await withCluster(
            nodes: 2,
            {
                $0.webhooks = WebhookConfiguration(urls: [receiver.url], batchWindow: 0.01, grace: 0)
                $0.webhooks.eventTypes[receiver.url] = ["subscription_count"]
            }
        ) { cluster in
            let (a, _) = try await cluster[0].subscribedSocket("news")
            try await waitUntil(timeout: 10, "the first count") { receiver.accepted.flatMap(\.events).count == 1 }
            let (b, _) = try await cluster[1].subscribedSocket("news")
            try await waitUntil(timeout: 10, "the second count") { receiver.accepted.flatMap(\.events).count >= 2 }
            await b.close()
            try await waitUntil(timeout: 10, "the third count") { receiver.accepted.flatMap(\.events).count >= 3 }
            try await Task.sleep(for: .milliseconds(300))
            let events = receiver.accepted.flatMap(\.events)
            #expect(
                events.map { $0["subscription_count"]?.intValue } == [1, 2, 1], "one webhook per change, not per node")
            #expect(
                events.allSatisfy {
                    $0["name"]?.stringValue == "subscription_count" && $0["channel"]?.stringValue == "news"
                })
            await a.close()
        }
    }

    @Test func sendToUserTerminateAndWatchlistsWorkAcrossNodes() async throws {
        try await withCluster(nodes: 2) { cluster in
            let (ann, annID) = try await TestSocket.established(cluster[0].url())
            try await Self.signIn(ann, socketID: annID, as: "ann", watching: ["bob"], on: cluster[0])
            let (bob, bobID) = try await TestSocket.established(cluster[1].url())
            try await Self.signIn(bob, socketID: bobID, as: "bob", watching: ["ann"], on: cluster[1])
            // bob hears ann is online (she signed in first, on the other node); ann hears bob came online.
            let online = try await bob.next(PusherEventName.watchlistEvents)
            #expect(online.dataText?.contains("ann") == true)
            let cameOnline = try await ann.next(PusherEventName.watchlistEvents)
            #expect(cameOnline.dataText?.contains("bob") == true)

            // send_to_user through the node that does not hold bob.
            try await bob.subscribe("#server-to-user-bob")
            _ = try await bob.next(PusherEventName.subscriptionSucceeded, channel: "#server-to-user-bob")
            _ = try await cluster[0].api.sendToUser("bob", event: "note", data: "{}")
            _ = try await bob.next("note", channel: "#server-to-user-bob")

            // terminate_connections through the node that does not hold bob; ann hears bob went offline.
            _ = try await cluster[0].api.terminateUserConnections("bob")
            #expect(try await bob.waitForClose() == 4009)
            let offline = try await ann.next(PusherEventName.watchlistEvents)
            #expect(offline.dataText?.contains("offline") == true)
        }
    }

    static func signIn(
        _ socket: TestSocket, socketID: String, as userID: String, watching: [String],
        on node: EmbeddedServer
    ) async throws {
        let watchlist = watching.map { "\"\($0)\"" }.joined(separator: ",")
        let userData = #"{"id":"\#(userID)","watchlist":[\#(watchlist)]}"#
        let auth = UserAuthSignature.auth(
            key: node.configuration.app.key, secret: node.configuration.app.secret,
            socketID: socketID, userData: userData)
        try await socket.send(
            PusherMessage(
                event: PusherEventName.signin,
                data: ["auth": .string(auth), "user_data": .string(userData)]))
        _ = try await socket.next(PusherEventName.signinSuccess)
    }
}
