import AsyncHTTPClient
import Foundation
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@Suite("Cluster: events across nodes", .serialized)
struct ClusterEventTests {
    @Test func eventsThroughAnyNodeReachEverySubscriberOnceInPublisherOrder() async throws {
        try await withCluster(nodes: 3) { cluster in
            var sockets: [TestSocket] = []
            for node in cluster.nodes {
                for _ in 0..<2 { sockets.append(try await node.subscribedSocket("orders").0) }
            }
            // Two publishers, each through its own node, interleaved: each one's order must hold everywhere.
            let count = 40
            async let first: Void = {
                for seq in 0..<count {
                    _ = try await cluster[0].api.trigger(channels: ["orders"], event: "a", data: "\(seq)")
                }
            }()
            async let second: Void = {
                for seq in 0..<count {
                    _ = try await cluster[2].api.triggerBatch([
                        PusherBatchEvent(channel: "orders", name: "b", data: "\(seq)")
                    ])
                }
            }()
            _ = try await (first, second)
            _ = try await cluster[1].api.trigger(channels: ["orders"], event: "end", data: "{}")
            for socket in sockets {
                _ = try await socket.next("end", channel: "orders", timeout: 15)
                for name in ["a", "b"] {
                    let seqs = await socket.all(name, channel: "orders").map { $0.dataText ?? "" }
                    #expect(seqs == (0..<count).map(String.init), "event \(name): \(seqs)")
                }
            }
        }
    }

    @Test func socketIDExclusionWorksAcrossNodes() async throws {
        try await withCluster(nodes: 2) { cluster in
            let (origin, originID) = try await cluster[1].subscribedSocket("chat")
            let (other, _) = try await cluster[1].subscribedSocket("chat")
            let (remote, _) = try await cluster[0].subscribedSocket("chat")
            // Published through node 0, excluding a socket of node 1.
            _ = try await cluster[0].api.trigger(channels: ["chat"], event: "said", data: "hi", socketID: originID)
            _ = try await cluster[0].api.trigger(channels: ["chat"], event: "end", data: "{}")
            for socket in [origin, other, remote] { _ = try await socket.next("end", channel: "chat") }
            #expect(await origin.all("said").isEmpty)
            #expect(await other.all("said").count == 1)
            #expect(await remote.all("said").count == 1)
        }
    }

    @Test func clientEventsReachMembersOnOtherNodesWithUserID() async throws {
        try await withCluster(nodes: 2) { cluster in
            let (ann, _, _) = try await cluster[0].presenceSocket("presence-room", userID: "ann")
            let (ben, _, _) = try await cluster[1].presenceSocket("presence-room", userID: "ben")
            _ = try await ann.next(PusherEventName.memberAdded, channel: "presence-room")
            try await ann.send(PusherMessage(event: "client-typing", channel: "presence-room", data: ["on": true]))
            let typing = try await ben.next("client-typing", channel: "presence-room")
            #expect(typing.userID == "ann")
            #expect(typing.dataText == #"{"on":true}"#)
            try await ann.send(PusherMessage(event: "client-end", channel: "presence-room", data: ["x": 1]))
            _ = try await ben.next("client-end", channel: "presence-room")
            // Not echoed to the sender, from its own node or another.
            try await ben.send(PusherMessage(event: "client-end", channel: "presence-room", data: ["x": 2]))
            _ = try await ann.next("client-end", channel: "presence-room")
            #expect(await ann.all("client-typing").isEmpty)
            #expect(await ben.all("client-end").count == 1)
        }
    }

    @Test func oneNodeWithoutRedisIsUnchanged() async throws {
        try await withServer { server in
            #expect(server.hub.backplane.isClustered == false)
            let (health, body) = try await Self.get("\(server.httpURL)/health")
            #expect(health == 200)
            #expect(body.contains(#""redis":"disabled""#))
        }
    }

    static func get(_ url: String) async throws -> (Int, String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), text)
    }
}
