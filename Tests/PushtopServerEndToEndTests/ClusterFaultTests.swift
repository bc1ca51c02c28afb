import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Cluster: faults", .serialized)
struct ClusterFaultTests {
    /// A node cut off from Redis looks dead to the others (its heartbeat stops): they remove its members within
    /// the node timeout. It keeps serving its own sockets, says so on `/health`, and when Redis is reachable again
    /// it registers its members again.
    @Test func aNodeCutOffIsRemovedBySurvivorsWithinTheTimeoutKeepsServingAndRejoins() async throws {
        try await withCluster(nodes: 2, nodeTimeout: 1) { cluster in
            let proxy = try await FaultProxy.start(upstreamPort: cluster.redis.port)
            let cutOff = try await cluster.startNode("node-cut") { configuration in
                configuration.cluster?.redisURL = "redis://127.0.0.1:\(proxy.port)"
            }
            do {
                let (ann, _, _) = try await cluster[0].presenceSocket("presence-room", userID: "ann")
                let (zed, _, roster) = try await cutOff.presenceSocket("presence-room", userID: "zed")
                #expect(roster.presenceIDs == ["ann", "zed"])
                let (local, _) = try await cutOff.subscribedSocket("news")
                _ = try await ann.next(PusherEventName.memberAdded)

                proxy.partition()
                let cutAt = Date()
                let removed = try await ann.next(PusherEventName.memberRemoved, timeout: 30)
                #expect(removed.dataJSON?["user_id"]?.stringValue == "zed")
                // Within 1.25 × the node timeout (1 s here) on an idle machine; long before the 20 s default would.
                let took = Date().timeIntervalSince(cutAt)
                #expect(took < LoadedMachine.bound(1.25 * 1), "removed after \(took) s")
                #expect(await cluster[1].hub.clusterUsers(in: "presence-room") == ["ann"])
                #expect(await cluster[1].hub.clusterChannelSummary("news").subscriptionCount == 0)

                // Alone, the node still serves its own sockets, and says how it stands.
                try await waitUntil("the node to notice") { cutOff.hub.backplane.health != .up }
                let (status, body) = try await ClusterEventTests.get("\(cutOff.httpURL)/health")
                #expect(status == 200)
                #expect(body.contains(#""node_id":"node-cut""#))
                #expect(!body.contains(#""redis":"up""#))
                _ = try await cutOff.api.trigger(channels: ["news"], event: "alone", data: "{}")
                _ = try await local.next("alone", channel: "news")
                let metrics = try await ClusterEventTests.get("\(cutOff.httpURL)/metrics").1
                #expect(metrics.contains(#"pushtop_cluster_redis_up{node_id="node-cut""#))
                // Meanwhile amy joins elsewhere: zed's node cannot hear it now, but tells zed once it is back.
                let (amy, _, _) = try await cluster[1].presenceSocket("presence-room", userID: "amy")
                _ = try await ann.next(PusherEventName.memberAdded)  // amy

                proxy.heal()
                let back = try await ann.next(PusherEventName.memberAdded, timeout: 15)  // zed again
                #expect(back.dataJSON?["user_id"]?.stringValue == "zed")
                try await waitUntil(timeout: 15, "the node to be up") { cutOff.hub.backplane.health == .up }
                let amyForZed = try await zed.next(PusherEventName.memberAdded, channel: "presence-room", timeout: 15)
                #expect(amyForZed.dataJSON?["user_id"]?.stringValue == "amy")
                #expect(await cluster[0].hub.clusterUsers(in: "presence-room") == ["amy", "ann", "zed"])
                _ = amy
                #expect(await cluster[0].hub.clusterChannelSummary("news").subscriptionCount == 1)
                // And events flow both ways again. Published again until one arrives: on a loaded machine the
                // node's link may flap once more (a 0.5 s PING timeout at this node timeout), and an event
                // published while it is down is lost by design.
                var heard = false
                for _ in 0..<5 where !heard {
                    _ = try await cluster[0].api.trigger(channels: ["presence-room"], event: "hello", data: "{}")
                    heard = (try? await zed.next("hello", channel: "presence-room", timeout: 4)) != nil
                }
                #expect(heard, "events through node-0 never reached the node that was cut off")
                await cutOff.shutdown()
            } catch {
                await cutOff.shutdown()
                throw error
            }
            await proxy.shutdown()
        }
    }

    /// Redis itself dies and comes back empty: every node re-registers, so no member is lost and no count is
    /// wrong.
    @Test func redisLossAndReturnLosesNoMember() async throws {
        try await withCluster(nodes: 2, nodeTimeout: 1) { cluster in
            let (ann, _, _) = try await cluster[0].presenceSocket("presence-room", userID: "ann")
            let (ben, _, _) = try await cluster[1].presenceSocket("presence-room", userID: "ben")
            let (cyd, _, _) = try await cluster[1].presenceSocket("presence-room", userID: "cyd")
            try await waitUntil("ben and cyd added") { await ann.all(PusherEventName.memberAdded).count == 2 }
            _ = try await cluster[1].subscribedSocket("news")

            cluster.redis.kill()
            try await waitUntil("both nodes to notice") {
                cluster.nodes.allSatisfy { $0.hub.backplane.health != .up }
            }
            // cyd leaves while the nodes cannot tell each other.
            await cyd.close()
            // Meanwhile each node serves its own.
            _ = try await cluster[0].api.trigger(channels: ["presence-room"], event: "alone", data: "{}")
            _ = try await ann.next("alone", channel: "presence-room")

            try await cluster.redis.restart()
            try await waitUntil(timeout: 20, "both nodes to be back") {
                cluster.nodes.allSatisfy { $0.hub.backplane.health == .up }
            }
            #expect(await cluster[0].hub.clusterUsers(in: "presence-room") == ["ann", "ben"])
            #expect(await cluster[0].hub.clusterChannelSummary("news").subscriptionCount == 1)
            #expect(await cluster[0].hub.clusterChannelSummary("presence-room").subscriptionCount == 2)
            _ = try await cluster[0].api.trigger(channels: ["presence-room"], event: "together", data: "{}")
            _ = try await ben.next("together", channel: "presence-room", timeout: 10)
            // The one who left while Redis was away is told gone (within a node timeout of the return); the
            // one who stayed, whose node re-registers on its own schedule, never is.
            let removed = try await ann.next(PusherEventName.memberRemoved, channel: "presence-room", timeout: 10)
            #expect(removed.dataJSON?["user_id"]?.stringValue == "cyd")
            #expect(await ann.all(PusherEventName.memberRemoved).count == 1)
        }
    }
}
