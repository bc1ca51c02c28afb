import Foundation
import PusherChannels
import PushtopTestSupport
import Testing

/// `pushtop --node A --node B` in tmux on a joined pair (one `pushtop serve --simulate`, reached directly and
/// through a proxy: every event reaches both) while members join and leave `presence-lobby` through both nodes
/// several times a second: sampled for 30 s, the screen never shows a split roster or a missed canary.
@Suite(.serialized) struct NodesChurnEndToEndTests {
    @Test func churnOnAJoinedPairRaisesNoFalseAlarm() async throws {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        let server = try SeveralAppsEndToEndTests.Server(key: "node-key", secret: "node-secret", extra: ["--simulate"])
        defer { server.stop() }
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        let nodeA = "127.0.0.1:\(server.port)", nodeB = "127.0.0.1:\(proxy.port)"
        let environment = "env -u PUSHER_APP_KEY -u PUSHTOP_KEY -u PUSHTOP_PROFILE HOME=/nonexistent XDG_CONFIG_HOME= "
        let tmux = try TmuxSession(command: environment + "\(DemoEndToEndTests.binary) --node \(nodeA) --node \(nodeB)"
            + " --key node-key --secret node-secret --app-id 1 --no-tls --canary-interval 1 presence-lobby", columns: 220, rows: 42)
        defer { tmux.stop() }
        tmux.waitFor("both nodes connected", timeout: 20) {
            $0.contains("2 nodes · A switches") && $0.components(separatedBy: "● connected").count >= 3
        }
        // Churn: members join and leave through one node or the other, each staying a fraction of a second.
        let ports = [server.port, proxy.port]
        let churn = Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                let port = ports[n % 2]
                let options = PusherClientOptions(key: "node-key", host: "127.0.0.1", port: port,
                    connection: ConnectionConfiguration(useTLS: false),
                    authorizer: SecretAuthorizer(key: "node-key", secret: "node-secret", userID: "churn-\(n % 5)"))
                let client = PusherClient(options: options)
                try? await client.subscribe("presence-lobby")
                await client.connect()
                try? await Task.sleep(for: .milliseconds(Int.random(in: 150...700)))
                await client.shutdown(closeTimeout: .milliseconds(200))
            }
        }
        defer { churn.cancel() }
        var samples = 0, alarms: [String] = []
        let end = Date().addingTimeInterval(30)
        var screen = ""
        while Date() < end {
            try await Task.sleep(for: .milliseconds(500))
            screen = tmux.capture()
            samples += 1
            // The node watch's alarms (the members pane's own presence check is the truth issue's).
            if screen.contains(": on node ") || screen.contains("; not on ") || screen.contains("'s API") || screen.contains("missed canary")
                || screen.range(of: "  (missed|away) [0-9]", options: .regularExpression) != nil
            {
                alarms.append(screen)
            }
        }
        churn.cancel()
        #expect(samples >= 30)
        #expect(alarms.isEmpty, "\(alarms.count) of \(samples) screens raised an alarm; first:\n\(alarms.first ?? "")")
        // The canary ran all along: both nodes show a latency.
        #expect(screen.components(separatedBy: "canary p50").count >= 3, "\(screen)")
        tmux.send("q")
        _ = tmux.waitForExit()
        await proxy.shutdown()
    }
}
