import Logging
import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PushtopServer

/// A node joins its cluster however its Redis connections and its start race.
@Suite("Cluster: joining") struct ClusterJoinTests {
    /// The connections start when the backplane is made; on a fast machine they are up before the node starts
    /// listening to them. The node must still count as joined (it once stayed `down` for good, one run in fifty).
    @Test func aNodeWhoseRedisIsUpBeforeItStartsJoins() async throws {
        let redis = try await RedisServerProcess.start()
        defer { redis.kill() }
        var configuration = ServerConfiguration(port: 0)
        let cluster = ClusterConfiguration(
            redisURL: redis.url, nodeID: "early", prefix: "t\(UInt32.random(in: 0...UInt32.max))")
        configuration.cluster = cluster
        let backplane = try RedisBackplane(
            cluster: cluster, server: configuration, logger: Logger(label: "test.cluster"))
        try await backplane.redis.waitUntilUp(timeout: .seconds(10))
        try await backplane.subscriber.waitUntilUp(timeout: .seconds(10))
        let hub = PusherHub(configuration: configuration, backplane: backplane, logger: Logger(label: "test.cluster"))
        let running = Task { await backplane.run(hub: hub) {} }
        try await waitUntil(timeout: 5, "the node to join (health: \(backplane.health))") { backplane.health == .up }
        running.cancel()
        await running.value
    }
}
