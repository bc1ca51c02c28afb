import Foundation
import Logging
import PusherChannels
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Synchronization

/// A real `redis-server` and several in-process nodes joined through it (each its own `EmbeddedServer` on its
/// own port), for the cluster tests. Each run uses its own key prefix.
final class ClusterFixture: Sendable {
    let redis: RedisServerProcess
    let prefix: String
    let nodeTimeout: Double
    private let nodesBox = Mutex<[EmbeddedServer?]>([])

    private init(redis: RedisServerProcess, prefix: String, nodeTimeout: Double) {
        self.redis = redis
        self.prefix = prefix
        self.nodeTimeout = nodeTimeout
    }

    /// The running nodes (a stopped one is `nil`).
    var nodes: [EmbeddedServer] { nodesBox.withLock { $0.compactMap { $0 } } }
    subscript(index: Int) -> EmbeddedServer { nodesBox.withLock { $0[index]! } }

    /// Starts Redis and `count` nodes named `node-0`, `node-1`, …
    static func start(
        nodes count: Int, nodeTimeout: Double = 20,
        _ configure: @Sendable (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ClusterFixture {
        let redis = try await RedisServerProcess.start()
        let fixture = ClusterFixture(
            redis: redis, prefix: "t\(UInt32.random(in: 0...UInt32.max))",
            nodeTimeout: nodeTimeout)
        for index in 0..<count {
            let node = try await fixture.startNode("node-\(index)", configure)
            fixture.nodesBox.withLock { $0.append(node) }
        }
        return fixture
    }

    /// A node of this cluster (not recorded in ``nodes``).
    func startNode(_ id: String, _ configure: @Sendable (inout ServerConfiguration) -> Void = { _ in })
        async throws -> EmbeddedServer
    {
        var configuration = ServerConfiguration(port: 0)
        configuration.cluster = ClusterConfiguration(
            redisURL: redis.url, nodeID: id, prefix: prefix,
            nodeTimeout: nodeTimeout)
        configure(&configuration)
        var logger = Logger(label: "test.cluster")
        logger.logLevel = .warning
        let node = try await EmbeddedServer.start(configuration, logger: logger)
        // On a loaded machine the node may start before Redis answered (it then serves alone for a moment).
        if configuration.cluster?.redisURL == redis.url {
            try await waitUntil(timeout: 20, "\(id) to join the cluster") { node.hub.backplane.health == .up }
        }
        return node
    }

    /// Stops node `index` cleanly.
    func stopNode(_ index: Int) async {
        let node = nodesBox.withLock { nodes -> EmbeddedServer? in
            defer { nodes[index] = nil }
            return nodes[index]
        }
        await node?.shutdown()
    }

    /// Stops every node and Redis.
    func stop() async {
        for node in nodes { await node.shutdown() }
        redis.kill()
    }
}

/// Runs `body` with a cluster of `count` nodes, and always stops it.
func withCluster<T>(
    nodes count: Int, nodeTimeout: Double = 20, _ configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
    _ body: (ClusterFixture) async throws -> T
) async throws -> T {
    let cluster = try await ClusterFixture.start(nodes: count, nodeTimeout: nodeTimeout, configure)
    return try await runAndCleanUp({ try await body(cluster) }, finally: { await cluster.stop() })
}

extension EmbeddedServer {
    /// A socket on this node that subscribed to a presence channel as `userID`; returns once it succeeded, with
    /// the `subscription_succeeded` message.
    func presenceSocket(_ channel: String, userID: String, info: JSONValue? = nil) async throws
        -> (TestSocket, String, PusherMessage)
    {
        let (socket, socketID) = try await TestSocket.established(url())
        var fields: [String: JSONValue] = ["user_id": .string(userID)]
        if let info { fields["user_info"] = info }
        let data = JSONValue.object(fields).jsonString
        try await socket.subscribe(
            channel, auth: auth(socketID: socketID, channel: channel, channelData: data),
            channelData: data)
        let succeeded = try await socket.next(PusherEventName.subscriptionSucceeded, channel: channel)
        return (socket, socketID, succeeded)
    }

    /// A socket on this node subscribed to a public channel.
    func subscribedSocket(_ channel: String) async throws -> (TestSocket, String) {
        let (socket, socketID) = try await TestSocket.established(url())
        try await socket.subscribe(channel)
        _ = try await socket.next(PusherEventName.subscriptionSucceeded, channel: channel)
        return (socket, socketID)
    }
}

extension PusherMessage {
    /// The user ids of a presence `subscription_succeeded`, sorted.
    var presenceIDs: [String] {
        (dataJSON?["presence"]?["ids"]?.arrayValue ?? []).compactMap(\.stringValue).sorted()
    }
}
