import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Cluster: one presence roster per channel", .serialized)
struct ClusterPresenceTests {
    @Test func subscriptionSucceededCarriesTheWholeClustersMembers() async throws {
        try await withCluster(nodes: 3) { cluster in
            let (ann, _, first) = try await cluster[0].presenceSocket(
                "presence-room", userID: "ann", info: ["name": "Ann"])
            #expect(first.presenceIDs == ["ann"])
            let (_, _, second) = try await cluster[1].presenceSocket("presence-room", userID: "ben")
            #expect(second.presenceIDs == ["ann", "ben"])
            let (_, _, third) = try await cluster[2].presenceSocket("presence-room", userID: "cat")
            #expect(third.presenceIDs == ["ann", "ben", "cat"])
            #expect(third.dataJSON?["presence"]?["hash"]?["ann"]?["name"]?.stringValue == "Ann")
            #expect(third.dataJSON?["presence"]?["count"]?.intValue == 3)
            // ann, on node 0, heard both others join from their nodes.
            let added = [
                try await ann.next(PusherEventName.memberAdded), try await ann.next(PusherEventName.memberAdded),
            ]
            #expect(added.compactMap { $0.dataJSON?["user_id"]?.stringValue } == ["ben", "cat"])
        }
    }

    @Test func memberAddedOnceForTheFirstConnectionAnywhereRemovedAfterTheLastAnywhere() async throws {
        try await withCluster(nodes: 3) { cluster in
            let (watcher, _, _) = try await cluster[0].presenceSocket("presence-room", userID: "watcher")
            let (dan1, _, _) = try await cluster[1].presenceSocket("presence-room", userID: "dan")
            _ = try await watcher.next(PusherEventName.memberAdded)
            // dan's second connection, on another node: no new member.
            let (dan2, _, roster) = try await cluster[2].presenceSocket("presence-room", userID: "dan")
            #expect(roster.presenceIDs == ["dan", "watcher"])
            // dan's first connection leaves: still a member (another node holds one).
            await dan1.close()
            let (marker, _, _) = try await cluster[1].presenceSocket("presence-room", userID: "marker")
            _ = try await watcher.next(PusherEventName.memberAdded)  // marker
            #expect(
                await watcher.all(PusherEventName.memberAdded).compactMap { $0.dataJSON?["user_id"]?.stringValue }
                    == ["dan", "marker"])
            #expect(await watcher.all(PusherEventName.memberRemoved).isEmpty)
            // The last one leaves: removed, once, on every node.
            await dan2.close()
            let removed = try await watcher.next(PusherEventName.memberRemoved)
            #expect(removed.dataJSON?["user_id"]?.stringValue == "dan")
            let removedOnOne = try await marker.next(PusherEventName.memberRemoved)
            #expect(removedOnOne.dataJSON?["user_id"]?.stringValue == "dan")
            await marker.close()
            _ = try await watcher.next(PusherEventName.memberRemoved)
            #expect(await watcher.all(PusherEventName.memberRemoved).count == 2)
            #expect(await watcher.all(PusherEventName.memberAdded).count == 2)
        }
    }

    @Test func theMemberLimitCountsTheCluster() async throws {
        try await withCluster(nodes: 2, { $0.limits.maxPresenceMembers = 2 }) { cluster in
            _ = try await cluster[0].presenceSocket("presence-small", userID: "a")
            _ = try await cluster[1].presenceSocket("presence-small", userID: "b")
            // A second connection of a member is not a new member.
            _ = try await cluster[1].presenceSocket("presence-small", userID: "a")
            let (late, lateID) = try await TestSocket.established(cluster[0].url())
            let data = #"{"user_id":"c"}"#
            try await late.subscribe(
                "presence-small",
                auth: cluster[0].auth(
                    socketID: lateID, channel: "presence-small",
                    channelData: data), channelData: data)
            let error = try await late.next(PusherEventName.subscriptionError, channel: "presence-small")
            #expect(error.dataJSON?["type"]?.stringValue == "LimitReached")
            #expect(await cluster[1].hub.clusterUsers(in: "presence-small") == ["a", "b"])
        }
    }
}
