import Foundation
import PushtopTestSupport
import Testing

/// `pushtop --node A --node B` in tmux against two real `pushtop serve` processes with the same app that are
/// not joined (the misconfigured cluster): a row per node, and within two canary intervals the canaries one
/// node never delivers and the presence member only one node knows.
@Suite(.serialized) struct NodesEndToEndTests {
    @Test func twoUnjoinedNodesShowMissedCanariesAndASplitRoster() async throws {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        let nodes = try await ServeNode.start(2, key: "node-key", secret: "node-secret", appID: "1")
        defer { for node in nodes { node.process.signal(SIGTERM) } }
        let (a, b) = (nodes[0], nodes[1])
        let nodeA = "127.0.0.1:\(a.port)", nodeB = "127.0.0.1:\(b.port)"
        // alice is in presence-room through node A only.
        let alice = try PushtopProcess([
            "watch", "--host", "127.0.0.1", "--port", "\(a.port)", "--no-tls", "--key",
            "node-key", "--secret", "node-secret", "--user-id", "alice", "presence-room",
        ])
        defer { alice.signal(SIGTERM) }
        let (tmux, _) = try await TmuxSession.nodesDashboard(
            [nodeA, nodeB], canaryInterval: 2, channel: "presence-room")
        defer { tmux.stop() }
        // Two intervals (4 s) after both are up, plus the grace time and a loaded machine's slack.
        let screen = try await tmux.waitFor("the misses and the split", timeout: 15) {
            $0.contains("node \(nodeB) missed canary 1 (published via \(nodeA))")
                && $0.contains("presence-room: alice: on node \(nodeA) only")
                && $0.contains("alice: on node \(nodeA) only")
        }
        // The pane: the split under its channel, each node's misses on its canary line.
        #expect(
            screen.contains("│  presence-room:") && screen.contains("│    alice: on node \(nodeA) only"),
            "\(TmuxSession.compact(screen))\n(the split under its channel)")
        #expect(
            screen.range(of: #"missed [0-9]+ \(last #[0-9]+\)"#, options: .regularExpression) != nil,
            "\(TmuxSession.compact(screen))\n(the misses on a canary line)")
        // Node A delivers what is published through it: its canary line has a latency.
        let lines = screen.split(separator: "\n").map(String.init)
        if let row = lines.firstIndex(where: { $0.contains("▸\(nodeA) ") && $0.contains("● ") }), row + 1 < lines.count
        {
            #expect(lines[row + 1].contains("canary p50"), "\(TmuxSession.compact(screen))\n(node A's canary latency)")
        } else {
            Issue.record("\(TmuxSession.compact(screen))\n(no row for \(nodeA))")
        }
        tmux.send("q")
        _ = try await tmux.waitForExit()
    }
}
