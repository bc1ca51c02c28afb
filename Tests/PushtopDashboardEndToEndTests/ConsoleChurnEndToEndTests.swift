import Foundation
import PusherChannels
import PushtopTestSupport
import Testing

/// The real dashboard's console against a real `pushtop serve` under churn: the counts it shows (connections now,
/// channels occupied) come from the feed's hello plus every row since, and must agree with the server's HTTP API.
@Suite struct ConsoleChurnEndToEndTests {
    @Test func theConsolesCountsAgreeWithTheHTTPAPIAfterChurn() async throws {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        let node = try await ServeNode.start()
        defer { Task { await node.stop() } }
        let url = "ws://127.0.0.1:\(node.port)/app/\(node.key)?protocol=7"
        // Some connections exist before the console opens: they reach it through the hello.
        var open: [TestSocket] = []
        for i in 0..<3 { open.append(try await TestSocket.subscribed(url, to: "churn-\(i)").0) }

        let tmux = try TmuxSession(
            command: "\(PushtopProcess.binary.path) --host 127.0.0.1 --port \(node.port) --no-tls --key \(node.key) "
                + "--secret \(node.secret) --app-id \(node.appID)")
        defer { tmux.stop() }
        try await tmux.waitFor("the dashboard", timeout: 20) { $0.contains("● connected") }
        tmux.send("C")
        try await tmux.waitFor("the console's feed") { $0.contains("connections now") && $0.contains("● feed") }

        // Churn: sockets subscribe to 10 channels and leave, some channels empty and fill again.
        for round in 0..<5 {
            for i in 0..<4 { open.append(try await TestSocket.subscribed(url, to: "churn-\((round * 3 + i) % 10)").0) }
            for socket in open.prefix(3) { await socket.close() }
            open.removeFirst(3)
        }

        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: node.appID, key: node.key, secret: node.secret, host: "127.0.0.1", port: node.port))
        var agreed = ""
        do {
            try await waitUntil(timeout: 20, "the console's counts to agree with the HTTP API") {
                let occupied = try await api.channels().json?["channels"]?.objectValue?.count ?? -1
                // The test's sockets and the dashboard's own connection.
                agreed = "\(open.count + 1) connections now · \(occupied) channels occupied"
                return tmux.capture().contains(agreed)
            }
        } catch {
            Issue.record("expected '\(agreed)' on the console:\n\(tmux.capture())")
            throw error
        }
        #expect(!tmux.capture().contains("approximate"))
        for socket in open { await socket.close() }
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }
}
