import Foundation
import PushtopTestSupport
import Testing

/// `pushtop canary` against real `pushtop serve` processes: one healthy node, two nodes with the same app that
/// are not joined (the misconfigured cluster), and a node that is killed.
@Suite(.timeLimit(.minutes(2))) struct CanaryCommandTests {
    let isolated = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": ""]

    func canary(_ nodes: [ServeNode], _ extra: [String]) -> [String] {
        ["canary", "--key", ServeNode.key, "--secret", ServeNode.secret, "--app-id", ServeNode.appID, "--no-tls"]
            + nodes.flatMap { ["--node", $0.address] } + extra
    }

    func summary(_ process: PushtopProcess) -> [String: Any]? {
        process.objects.last { $0["type"] as? String == "summary" }
    }

    func node(_ summary: [String: Any]?, _ address: String) -> [String: Any]? {
        (summary?["nodes"] as? [[String: Any]])?.first { $0["node"] as? String == address }
    }

    @Test func oneHealthyNodeLosesNothing() async throws {
        let serve = try await ServeNode.start()
        let run = try PushtopProcess(
            canary([serve], ["--rate", "20/s", "--duration", "4", "--report-every", "1"]), environment: isolated)
        #expect(try await run.exitCode(timeout: 30) == 0, "\(run.lines.suffix(5)) \(run.stderr)")
        let last = try #require(run.lines.last)
        #expect(last.hasPrefix(#"{"type":"summary","nodes":[{"node":"\#(serve.address)","published":"#), "\(last)")
        let n = try #require(node(summary(run), serve.address))
        #expect(n["lost"] as? Int == 0 && n["duplicated"] as? Int == 0 && summary(run)?["ok"] as? Bool == true)
        // 80 at 20/s over 4 s; a loaded CI machine publishes fewer, never fewer than 30.
        #expect((n["published"] as? Int ?? 0) >= 30 && n["received"] as? Int == n["published"] as? Int, "\(n)")
        #expect(n["p50_ms"] is Double && n["p99_ms"] is Double)
        #expect(run.objects.contains { $0["type"] as? String == "latency" && $0["node"] as? String == serve.address })
        await serve.stop()
    }

    @Test func twoUnjoinedNodesFailAndNameTheNodeThatMissed() async throws {
        let a = try await ServeNode.start(), b = try await ServeNode.start()
        let run = try PushtopProcess(
            canary([a, b], ["--rate", "10", "--duration", "2", "--grace", "1"]), environment: isolated)
        #expect(try await run.exitCode(timeout: 30) == 1)
        // What was published through A never reached B, and the other way round.
        let missedByB = run.objects.first { $0["type"] as? String == "missed" && $0["node"] as? String == b.address }
        #expect(
            missedByB?["via"] as? String == a.address && missedByB?["while"] as? String == "connected",
            "\(run.lines.prefix(8))")
        let s = summary(run)
        #expect(s?["ok"] as? Bool == false)
        #expect((node(s, b.address)?["lost"] as? Int ?? 0) > 0 && (node(s, a.address)?["lost"] as? Int ?? 0) > 0)
        await a.stop()
        await b.stop()
    }

    @Test func aNodeThatGoesAwayCountsItsMissesAsAwayAndNoFalseAlarmElsewhere() async throws {
        // Node B is a second way to the same server (a joined pair): taking it down is a node dying. A grace of 3 s: on
        // a loaded machine a canary can take over a second to arrive, and one cut off in flight while B still looked
        // up would count as lost, which is what the canary reports for a node that loses events, not this test's case.
        let (a, proxy, b) = try await ServeNode.startJoinedPair()
        let run = try PushtopProcess(
            [
                "canary", "--key", ServeNode.key, "--secret", ServeNode.secret, "--app-id", ServeNode.appID,
                "--no-tls", "--node", a.address, "--node", b, "--rate", "10", "--duration", "forever", "--grace", "3",
                "--report-every", "1", "--max-retries", "0",
            ], environment: isolated)
        try await run.waitForLine("canaries flowing", timeout: 30) {
            $0["type"] as? String == "latency" && ($0["received"] as? Int ?? 0) > 0
        }
        await proxy.takeDown()
        try await run.waitForLine("B is away", timeout: 20) {
            $0["type"] as? String == "disconnected" && $0["node"] as? String == b
        }
        try await run.waitForLine("a miss while away", timeout: 20) {
            $0["type"] as? String == "missed" && $0["node"] as? String == b && $0["while"] as? String == "away"
        }
        try await run.waitForLine("a publish through B passes the turn", timeout: 20) {
            $0["type"] as? String == "publish_error" && $0["via"] as? String == b
        }
        run.signal(SIGINT)
        // Misses while away are not losses: the run is still OK.
        #expect(try await run.exitCode(timeout: 20) == 0, "\(run.lines.suffix(4))")
        let s = summary(run)
        #expect((node(s, b)?["away"] as? Int ?? 0) > 0 && node(s, b)?["lost"] as? Int == 0, "\(run.lines.suffix(3))")
        #expect(node(s, a.address)?["lost"] as? Int == 0 && node(s, a.address)?["away"] as? Int == 0)
        await proxy.shutdown()
        await a.stop()
    }

    /// B acts on each publish and dies before it answers (its answers are lost), so the canary publishes the seq
    /// again through A. A is 300 ms away, so B's copy reaches A after the second publish went out: two copies of
    /// one seq on A, and neither a duplicate nor a failure.
    @Test func aPublishThatFailsAfterLandingIsNoDuplicate() async throws {
        let serve = try await ServeNode.start()
        let far = try await FaultProxy.start(upstreamPort: serve.port),
            dying = try await FaultProxy.start(upstreamPort: serve.port)
        far.shape(latency: .milliseconds(300))
        let a = "127.0.0.1:\(far.port)", b = "127.0.0.1:\(dying.port)"
        let run = try PushtopProcess(
            [
                "canary", "--key", ServeNode.key, "--secret", ServeNode.secret, "--app-id", ServeNode.appID,
                "--no-tls", "--node", a, "--node", b, "--rate", "10", "--duration", "forever", "--grace", "2",
                "--report-every", "1", "--max-retries", "0",
            ], environment: isolated)
        try await run.waitForLine("canaries flowing", timeout: 30) {
            $0["type"] as? String == "latency" && $0["node"] as? String == a && ($0["received"] as? Int ?? 0) > 0
        }
        dying.loseAnswers()
        let landedOnA: @Sendable ([String: Any]) -> Bool = {
            $0["type"] as? String == "landed_after_error" && $0["node"] as? String == a && $0["via"] as? String == b
        }
        try await waitUntil(timeout: 20, "two of B's copies landing on A after B's error (\(run.lines.suffix(5)))") {
            run.objects.filter(landedOnA).count >= 2
        }
        run.signal(SIGINT)
        #expect(try await run.exitCode(timeout: 20) == 0, "\(run.lines.suffix(4))")
        let onA = node(summary(run), a)
        #expect(onA?["duplicated"] as? Int == 0 && onA?["lost"] as? Int == 0, "\(run.lines.suffix(3))")
        #expect(!run.objects.contains { $0["type"] as? String == "duplicated" })
        await dying.shutdown()
        await far.shutdown()
        await serve.stop()
    }

    @Test func badUsageExits2() async throws {
        for arguments in [
            ["canary", "--rate", "fast"], ["canary", "--duration", "-1"], ["canary", "--node", "no-port"],
            ["canary", "--key", "k", "--host", "127.0.0.1", "--no-tls"],
        ] {
            let run = try await CommandRun.run("pushtop", arguments, environment: isolated)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(!run.stderr.isEmpty)
        }
    }
}
