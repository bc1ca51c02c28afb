import Foundation
import PushtopTestSupport
import Testing

/// `--node` on `watch` and `doctor` against real `pushtop serve` processes: two unjoined servers with the same
/// app (the misconfigured cluster), and a joined pair (one server reached directly and through a proxy).
@Suite(.timeLimit(.minutes(2))) struct NodesCommandTests {
    let isolated = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": ""]
    let app = ["--key", ServeNode.key, "--secret", ServeNode.secret, "--no-tls"]

    @Test func watchNamesEachLinesNode() async throws {
        let a = try await ServeNode.start(), b = try await ServeNode.start()
        let watch = try PushtopProcess(
            ["watch", "--node", a.address, "--node", b.address] + app + ["orders"], environment: isolated)
        for node in [a, b] {
            try await watch.waitForLine("subscribed on \(node.address)") {
                $0["type"] as? String == "subscribed" && $0["node"] as? String == node.address
            }
        }
        let trigger = try await CommandRun.run(
            "pushtop",
            [
                "trigger", "--port", String(b.port), "--key", ServeNode.key,
                "--secret", ServeNode.secret, "--app-id", ServeNode.appID, "orders", "on-b", "{}",
            ], environment: isolated)
        #expect(trigger.status == 0, "\(trigger.stderr)")
        try await watch.waitForLine("the event, from node B") {
            $0["event"] as? String == "on-b" && $0["node"] as? String == b.address
        }
        #expect(watch.lines.allSatisfy { $0.hasPrefix(#"{"node":""#) }, "\(watch.lines)")
        #expect(!watch.objects.contains { $0["event"] as? String == "on-b" && $0["node"] as? String == a.address })
        watch.signal(SIGTERM)
        #expect(try await watch.exitCode() == 0)
        await a.stop()
        await b.stop()
    }

    @Test func doctorChecksEachNodeThenOnePublishAcrossThem() async throws {
        let a = try await ServeNode.start(), b = try await ServeNode.start()
        let unjoined = try await CommandRun.run(
            "pushtop",
            [
                "doctor", "--node", a.address, "--node", b.address,
                "--app-id", ServeNode.appID,
            ] + app, environment: isolated)
        #expect(unjoined.status == 1)
        #expect(
            unjoined.stdout.contains("pushtop doctor: ws://\(a.address)/app/")
                && unjoined.stdout.contains("pushtop doctor: ws://\(b.address)/app/"),
            "\(unjoined.stdout)")
        #expect(
            unjoined.stdout.contains("FAIL  nodes     an event published via \(a.address) never reached \(b.address)"),
            "\(unjoined.stdout)")
        // A joined pair: the same server directly and through a proxy.
        let proxy = try await FaultProxy.start(upstreamPort: a.port)
        let joined = try await CommandRun.run(
            "pushtop",
            [
                "doctor", "--node", a.address, "--node", "127.0.0.1:\(proxy.port)",
                "--app-id", ServeNode.appID,
            ] + app, environment: isolated)
        #expect(joined.status == 0, "\(joined.stdout)\(joined.stderr)")
        #expect(
            joined.stdout.contains("ok    nodes     an event published via \(a.address) reached \(a.address) ("),
            "\(joined.stdout)")
        await proxy.shutdown()
        await a.stop()
        await b.stop()
    }

    @Test func canaryOnAJoinedPairLosesNothing() async throws {
        let (a, proxy, b) = try await ServeNode.startJoinedPair()
        let run = try await CommandRun.run(
            "pushtop",
            [
                "canary", "--node", a.address, "--node", b, "--app-id", ServeNode.appID,
                "--rate", "20", "--duration", "3",
            ] + app, environment: isolated, timeout: 40)
        #expect(run.status == 0, "\(run.stdout.suffix(600)) \(run.stderr)")
        let summary = try #require(run.stdout.split(separator: "\n").last)
        #expect(summary.contains(#""ok":true"#) && !summary.contains(#""lost":1"#), "\(summary)")
        #expect(!run.stdout.contains(#""type":"missed""#))
        await proxy.shutdown()
        await a.stop()
    }
}
