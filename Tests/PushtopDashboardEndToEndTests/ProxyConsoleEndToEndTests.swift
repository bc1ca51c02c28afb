import Foundation
import PusherChannels
import PushtopTestSupport
import Testing

/// The real dashboard's console on a real `pushtop proxy` in front of `pushtop serve`, in tmux: `K` on a client's
/// `connection` row has the proxy close that socket with 4200; the client reconnects, and the console shows the
/// `fault` row. On `serve` itself (no proxy), `K` says the feed has no fault control.
@Suite(.serialized) struct ProxyConsoleEndToEndTests {
    /// `pushtop proxy` on a free port in front of `node`; returns it and its port.
    func startProxy(upstream node: ServeNode) async throws -> (PushtopProcess, Int) {
        let proxy = try PushtopProcess([
            "proxy", "--listen", "127.0.0.1:0", "--upstream", "ws://127.0.0.1:\(node.port)", "--app-id", node.appID,
            "--key", node.key, "--secret", node.secret, "--log-level", "error",
        ])
        return (proxy, try await proxy.listeningPort("the proxy"))
    }

    /// The dashboard on `port` (a proxy or serve), with the app's credentials so that its console reads the feed.
    func dashboard(port: Int, node: ServeNode) throws -> TmuxSession {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        return try TmuxSession(
            command: "\(PushtopProcess.binary.path) --host 127.0.0.1 --port \(port) --no-tls --key \(node.key) "
                + "--secret \(node.secret) --app-id \(node.appID)",
            columns: 160, rows: 45)
    }

    /// Opens the console on its live feed (rows of sockets that connect from now on appear).
    func openConsole(_ tmux: TmuxSession) async throws {
        try await tmux.waitFor("the dashboard", timeout: 20) { $0.contains("● connected") }
        tmux.send("C")
        try await tmux.waitFor("the console's feed") { $0.contains("● feed") }
    }

    /// Shows only `socket`'s rows (the filter), with its oldest row, its `connection`, selected.
    func selectConnection(of socket: String, in tmux: TmuxSession) async throws {
        tmux.send("/")
        tmux.send(socket, literal: true)
        tmux.send("Enter")
        try await tmux.waitFor("the socket's rows") {
            $0.contains("/\(socket) (") && !$0.contains("(0 matches)") && $0.contains(" connection ")
        }
        tmux.send("g")
    }

    @Test func kOnAProxiedConnectionClosesItWith4200AndTheClientReconnects() async throws {
        let node = try await ServeNode.start()
        defer { Task { await node.stop() } }
        let (proxy, port) = try await startProxy(upstream: node)
        defer { proxy.signal(SIGTERM) }
        let client = PusherClient(
            options: PusherClientOptions(
                key: node.key, host: "127.0.0.1", port: port, connection: ConnectionConfiguration(useTLS: false)))
        let tmux = try dashboard(port: port, node: node)
        defer { tmux.stop() }
        try await openConsole(tmux)
        let recorder = EventRecorder(client)
        try await client.subscribe("kick-me")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("kick-me") }
        let first = try #require(await client.socketID)
        try await selectConnection(of: first, in: tmux)
        tmux.send("K")

        // The proxy closed the client's socket with 4200 ("reconnect now"): it came back with a new socket id and
        // subscribed again.
        try await recorder.wait("a close with 4200") {
            if case .closed(let closure) = $0 { return closure.code == 4200 } else { return false }
        }
        try await recorder.waitForState(.connected, occurrence: 2)
        try await waitUntil(timeout: 10, "a new socket id") { await client.socketID.map { $0 != first } ?? false }
        try await waitUntil(timeout: 10, "subscribed again") {
            recorder.count { $0.isSubscribed("kick-me") } >= 2
        }
        // The console says what it asked and shows the proxy's `fault` row for that socket.
        let screen = try await tmux.waitFor("the fault row") {
            $0.contains("closes socket \(first) with 4200") && $0.contains("fault")
        }
        #expect(screen.contains("4200"))
        await client.shutdown()
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }

    @Test func kOnServesOwnFeedSaysThereIsNoFaultControl() async throws {
        let node = try await ServeNode.start()
        defer { Task { await node.stop() } }
        let tmux = try dashboard(port: node.port, node: node)
        defer { tmux.stop() }
        try await openConsole(tmux)
        let url = "ws://127.0.0.1:\(node.port)/app/\(node.key)?protocol=7"
        let (socket, socketID) = try await TestSocket.subscribed(url, to: "not-a-proxy")
        try await selectConnection(of: socketID, in: tmux)
        tmux.send("K")
        try await tmux.waitFor("the footer's answer") {
            $0.contains("has no fault control (404)") && $0.contains("pushtop proxy")
        }
        // Nothing was closed.
        #expect(await socket.closeCode == nil)
        await socket.close()
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }
}
