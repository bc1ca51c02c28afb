import Foundation
import PushtopTestSupport
import Testing

/// `pushtop canary` on a real cluster: `pushtop serve --redis` nodes joined through a real `redis-server`, with
/// members joining and leaving through every node the whole time.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ClusterCanaryTests {
    let isolated = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": ""]

    func nodes(_ count: Int, redis: RedisServerProcess) async throws -> [ServeNode] {
        var nodes: [ServeNode] = []
        for i in 0..<count {
            nodes.append(try await ServeNode.start(extra: ["--redis", redis.url, "--node-id", "n\(i)"]))
        }
        return nodes
    }

    func canary(_ nodes: [ServeNode], _ extra: [String]) -> [String] {
        ["canary", "--key", ServeNode.key, "--secret", ServeNode.secret, "--app-id", ServeNode.appID, "--no-tls"]
            + nodes.flatMap { ["--node", $0.address] } + extra
    }

    func tallies(_ process: PushtopProcess) -> [[String: Any]] {
        (process.objects.last { $0["type"] as? String == "summary" }?["nodes"] as? [[String: Any]]) ?? []
    }

    @Test func twoJoinedNodesLoseNothing() async throws {
        try #require(RedisServerProcess.isAvailable, "redis-server is needed (scripts/install-deps)")
        let redis = try await RedisServerProcess.start()
        defer { redis.stop() }
        let cluster = try await nodes(2, redis: redis)
        let run = try PushtopProcess(canary(cluster, ["--rate", "20", "--duration", "10"]), environment: isolated)
        #expect(try await run.exitCode(timeout: 60) == 0, "\(run.lines.suffix(4)) \(run.stderr)")
        let t = tallies(run)
        // Every event published arrived: 200 at 20/s over 10 s; a loaded machine publishes fewer, never fewer than 75.
        #expect(
            t.count == 2
                && t.allSatisfy {
                    $0["lost"] as? Int == 0 && $0["duplicated"] as? Int == 0 && ($0["published"] as? Int ?? 0) >= 75
                        && $0["received"] as? Int == $0["published"] as? Int
                },
            "\(run.lines.suffix(2))")
        for node in cluster { await node.stop() }
    }

    @Test func threeJoinedNodesUnderChurnLoseNothingForAMinuteAndAKilledNodeIsAway() async throws {
        try #require(RedisServerProcess.isAvailable, "redis-server is needed (scripts/install-deps)")
        let redis = try await RedisServerProcess.start()
        defer { redis.stop() }
        let cluster = try await nodes(3, redis: redis)
        let churn = presenceChurn(
            ports: cluster.map(\.port), key: ServeNode.key, secret: ServeNode.secret, channel: "presence-lobby")
        defer { churn.cancel() }
        // A minute with `PUSHTOP_SOAK=1` (24 s in CI): three quarters with every node up, then node 3 dies (SIGKILL).
        let duration = ObservationWindow.seconds(soak: 60, ci: 24)
        let run = try PushtopProcess(
            canary(
                cluster,
                [
                    "--rate", "10", "--duration", "\(Int(duration))", "--grace", "2",
                    "--report-every", "5",
                ]), environment: isolated)
        try await Task.sleep(for: .seconds(duration * 3 / 4))
        #expect(
            !run.objects.contains { $0["type"] as? String == "missed" },
            "\(run.objects.filter { $0["type"] as? String == "missed" }.prefix(3))")
        await cluster[2].kill()
        #expect(try await run.exitCode(timeout: 60) == 0, "\(run.lines.suffix(4)) \(run.stderr)")
        churn.cancel()
        let t = tallies(run)
        #expect(t.count == 3, "\(run.lines.suffix(2))")
        for tally in t.prefix(2) {
            #expect(
                tally["lost"] as? Int == 0 && tally["duplicated"] as? Int == 0 && tally["away"] as? Int == 0, "\(tally)"
            )
            // Every event published arrived: 10/s, 600 in a minute; a loaded machine publishes fewer, never fewer
            // than 3 in 8 of them.
            #expect(
                (tally["published"] as? Int ?? 0) >= Int(duration * 10 * 3 / 8)
                    && tally["received"] as? Int == tally["published"] as? Int, "\(tally)")
        }
        let killed = t.last
        #expect(killed?["lost"] as? Int == 0 && (killed?["away"] as? Int ?? 0) > 0, "\(String(describing: killed))")
        for node in cluster.prefix(2) { await node.stop() }
    }
}
