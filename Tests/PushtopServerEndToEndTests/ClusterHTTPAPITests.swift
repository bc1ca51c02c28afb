import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Cluster: the HTTP API answers for the cluster", .serialized)
struct ClusterHTTPAPITests {
    @Test func channelsCountsAndUsersAreTheClusters() async throws {
        try await withCluster(nodes: 3) { cluster in
            _ = try await cluster[0].subscribedSocket("news")
            _ = try await cluster[1].subscribedSocket("news")
            _ = try await cluster[2].subscribedSocket("sport")
            _ = try await cluster[0].presenceSocket("presence-room", userID: "ann")
            _ = try await cluster[1].presenceSocket("presence-room", userID: "ben")
            _ = try await cluster[2].presenceSocket("presence-room", userID: "ben")

            // Asked of a node that holds none of news' subscribers.
            try await waitUntil("the counts to settle") {
                let body = try? await cluster[2].api.channels(info: ["subscription_count"]).json
                return body?["channels"]?["news"]?["subscription_count"]?.intValue == 2
            }
            let all = try await cluster[2].api.channels(info: ["subscription_count"]).json
            #expect(all?["channels"]?.objectValue?.keys.sorted() == ["news", "presence-room", "sport"])
            #expect(all?["channels"]?["presence-room"]?["subscription_count"]?.intValue == 3)
            let presence = try await cluster[2].api.channels(prefix: "presence-", info: ["user_count"]).json
            #expect(presence?["channels"]?.objectValue?.keys.sorted() == ["presence-room"])
            #expect(presence?["channels"]?["presence-room"]?["user_count"]?.intValue == 2)
            let news = try await cluster[2].api.channel("news", info: ["subscription_count"]).json
            #expect(news?["occupied"]?.boolValue == true)
            #expect(news?["subscription_count"]?.intValue == 2)
            let room = try await cluster[0].api.channel("presence-room", info: ["user_count", "subscription_count"])
                .json
            #expect(room?["user_count"]?.intValue == 2)
            #expect(room?["subscription_count"]?.intValue == 3)
            let users = try await cluster[0].api.users(in: "presence-room").json
            #expect(users?["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["ann", "ben"])
            let empty = try await cluster[1].api.channel("nobody-here", info: ["subscription_count"]).json
            #expect(empty?["occupied"]?.boolValue == false)
        }
    }

    @Test func subscriptionCountEventsCarryTheClustersCount() async throws {
        try await withCluster(nodes: 2) { cluster in
            let (first, _) = try await cluster[0].subscribedSocket("counted")
            let one = try await first.next(PusherEventName.subscriptionCount, channel: "counted")
            #expect(one.dataJSON?["subscription_count"]?.intValue == 1)
            let (second, _) = try await cluster[1].subscribedSocket("counted")
            let two = try await first.next(PusherEventName.subscriptionCount, channel: "counted")
            #expect(two.dataJSON?["subscription_count"]?.intValue == 2)
            let seen = try await second.next(PusherEventName.subscriptionCount, channel: "counted")
            #expect(seen.dataJSON?["subscription_count"]?.intValue == 2)
            await second.close()
            let back = try await first.next(PusherEventName.subscriptionCount, channel: "counted")
            #expect(back.dataJSON?["subscription_count"]?.intValue == 1)
        }
    }
}
