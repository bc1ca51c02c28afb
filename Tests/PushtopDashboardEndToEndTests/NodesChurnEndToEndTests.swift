import Foundation
import PusherChannels
import PushtopTestSupport
import Testing

/// `pushtop --node A --node B` in tmux on a joined pair (one `pushtop serve --simulate`, reached directly and
/// through a proxy: every event reaches both) while members join and leave `presence-lobby` through both nodes
/// several times a second: sampled for 30 s with `PUSHTOP_SOAK=1` (15 s in CI), the screen never shows a split roster or a missed canary.
@Suite(.serialized) struct NodesChurnEndToEndTests {
    @Test func churnOnAJoinedPairRaisesNoFalseAlarm() async throws {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        let server = try await ServeNode.start(
            key: "node-key", secret: "node-secret", appID: "1", extra: ["--simulate"])
        defer { server.process.signal(SIGTERM) }
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        let nodeA = "127.0.0.1:\(server.port)", nodeB = "127.0.0.1:\(proxy.port)"
        let tmux = try await TmuxSession.nodesDashboard([nodeA, nodeB], canaryInterval: 1, channel: "presence-lobby")
            .tmux
        defer { tmux.stop() }
        // Churn: members join and leave through one node or the other, each staying a fraction of a second.
        let churn = presenceChurn(
            ports: [server.port, proxy.port], key: "node-key", secret: "node-secret",
            channel: "presence-lobby")
        defer { churn.cancel() }
        try await NodeAlarmSampler.expectNoAlarm(
            tmux, seconds: ObservationWindow.seconds(soak: 30, ci: 15), churn: churn,
            nodes: 2)
        await proxy.shutdown()
    }
}
