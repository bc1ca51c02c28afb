import Foundation
import PushtopTestSupport
import Testing

/// `pushtop --node A --node B --node C` in tmux on a real cluster (three `pushtop serve --redis` nodes and a real
/// `redis-server`) while members join and leave `presence-lobby` through every node: sampled for 60 s with
/// `PUSHTOP_SOAK=1` (20 s in CI), the
/// screen never shows a split roster or a missed canary, and every node's canary latency shows.
@Suite(.serialized) struct NodesClusterEndToEndTests {
    @Test func aJoinedClusterUnderChurnRaisesNoFalseAlarmForAMinute() async throws {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        try #require(RedisServerProcess.isAvailable, "redis-server is needed (scripts/install-deps)")
        let redis = try await RedisServerProcess.start()
        defer { redis.stop() }
        let a = try await ServeNode.start(
            key: "node-key", secret: "node-secret", appID: "1", extra: ["--redis", redis.url, "--simulate"])
        defer { a.process.signal(SIGTERM) }
        let bc = try await ServeNode.start(
            2, key: "node-key", secret: "node-secret", appID: "1", extra: ["--redis", redis.url])
        defer { for node in bc { node.process.signal(SIGTERM) } }
        let (b, c) = (bc[0], bc[1])
        let nodeA = "127.0.0.1:\(a.port)", nodeB = "127.0.0.1:\(b.port)", nodeC = "127.0.0.1:\(c.port)"
        let tmux = try await TmuxSession.nodesDashboard(
            [nodeA, nodeB, nodeC], canaryInterval: 2, channel: "presence-lobby"
        ).tmux
        defer { tmux.stop() }
        let churn = presenceChurn(
            ports: [a.port, b.port, c.port], key: "node-key", secret: "node-secret", channel: "presence-lobby")
        defer { churn.cancel() }
        try await NodeAlarmSampler.expectNoAlarm(
            tmux, seconds: ObservationWindow.seconds(soak: 60, ci: 20), churn: churn,
            nodes: 3)
    }
}
