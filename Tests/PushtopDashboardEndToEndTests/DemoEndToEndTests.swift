import Foundation
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// The real `pushtop` binary in tmux: with nothing configured it runs the demo (embedded server, simulator,
/// dashboard), and a second client proves that what the keyboard does reaches the server.
@Suite(.serialized) struct DemoEndToEndTests {
    /// `pushtop` next to the test bundle (PushtopTestSupport's launcher finds it).
    static var binary: String { PushtopProcess.binary.path }

    /// Starts `pushtop ARGS` with an empty home (no config file) and no app key in the environment.
    func start(_ arguments: String = "", columns: Int = 140, rows: Int = 42) throws -> TmuxSession {
        try Self.withEmptyHome(arguments, columns: columns, rows: rows)
    }

    /// `pushtop ARGS` in tmux with an empty home (no config file) and no app key in the environment.
    static func withEmptyHome(_ arguments: String, columns: Int = 140, rows: Int = 42) throws -> TmuxSession {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-home-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        return try TmuxSession(
            command:
                "env -u PUSHER_APP_KEY -u PUSHTOP_KEY HOME=\(home) XDG_CONFIG_HOME= USER=tester \(binary) \(arguments)",
            columns: columns, rows: rows)
    }

    /// The demo server's port, read from the header (`127.0.0.1:PORT no TLS`).
    func serverPort(_ screen: String) -> Int? {
        guard let r = screen.range(of: "127.0.0.1:") else { return nil }
        return Int(screen[r.upperBound...].prefix { $0.isNumber })
    }

    @Test func noConfigurationRunsTheDemoWithLiveData() async throws {
        let tmux = try start()
        defer { tmux.stop() }
        let screen = try await tmux.waitFor("the demo's panes", timeout: 15) {
            $0.contains("● connected") && $0.contains("ticker") && $0.contains("chat") && $0.contains("presence-lobby")
                && $0.contains("private-encrypted-vault") && $0.contains("tester (me)") && $0.contains("price-update")
        }
        #expect(screen.contains("3 Members · presence-lobby"))
        let newest = { (s: String) in
            s.split(separator: "\n").filter { $0.contains("┃ ") && $0.contains("ticker") }.last.map(String.init) ?? ""
        }
        let before = newest(screen)
        try await tmux.waitFor("the log to move") { newest($0) != before }
        try await tmux.waitFor("a ping round-trip time") { screen in
            screen.split(separator: "\n").contains { $0.contains("Ping") && $0.contains(" ms") }
        }
        tmux.send("q")
        let after = try await tmux.waitForExit()
        #expect(after.contains("EXIT=0"))
        #expect(terminalIsSane(after), "stty after exit:\n\(after)")
    }

    @Test func theDemosConsoleShowsItsServersFeedAtOnce() async throws {
        let tmux = try start()
        defer { tmux.stop() }
        try await tmux.waitFor("the demo", timeout: 20) { $0.contains("tester (me)") }
        tmux.send("C")
        // The embedded server's own rows: the dashboard's connection and its subscriptions, seen from the server.
        let screen = try await tmux.waitFor("the server's rows in the console", timeout: 15) { screen in
            let lines = screen.split(separator: "\n")
            return screen.contains("connections now") && lines.contains { $0.contains(" connection ") }
                && lines.contains {
                    $0.contains("subscribed") && $0.contains("presence-lobby") && $0.contains("tester")
                }
        }
        #expect(!screen.contains("cannot see"), "\(screen)")
        tmux.send("C")
        try await tmux.waitFor("the panes again") { $0.contains("4 Event log") }
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }

    @Test func keyboardSubscribeUnsubscribeFilterAndResize() async throws {
        let tmux = try start("demo")
        defer { tmux.stop() }
        try await tmux.waitFor(text: "presence-lobby", timeout: 15)
        tmux.send("s")
        try await tmux.waitFor(text: "Subscribe to channel:")
        tmux.send("news", literal: true)
        tmux.send("Enter")
        try await tmux.waitFor("news subscribed by the server") { screen in
            screen.split(separator: "\n").contains {
                $0.contains(" news ") && $0.contains("subscribed") && !$0.contains("subscribing")
            }
        }
        try await tmux.unsubscribeLastChannel("news", row: " news ")
        tmux.send("/")
        tmux.send("c:chat", literal: true)
        tmux.send("Enter")
        try await tmux.waitFor("the chat filter") { $0.contains("/c:chat (") }
        tmux.send("Escape")
        tmux.resize(columns: 30, rows: 8)
        try await tmux.waitFor("the too-small screen") { $0.lowercased().contains("too small") }
        tmux.resize(columns: 140, rows: 42)
        try await tmux.waitFor("the panes again") { $0.contains("4 Event log") && $0.contains("● connected") }
        tmux.send("q")
        let after = try await tmux.waitForExit()
        #expect(after.contains("EXIT=0"))
        #expect(terminalIsSane(after))
    }

    @Test func clientEventFromTheKeyboardReachesASecondClient() async throws {
        let tmux = try start("demo")
        defer { tmux.stop() }
        let screen = try await tmux.waitFor("the demo", timeout: 15) {
            $0.contains("tester (me)") && $0.contains("127.0.0.1:")
        }
        let port = try #require(serverPort(screen))
        // A teammate joins the demo the way docs/serve.md says ("Presence demos with teammates"): the server's
        // development auth endpoint and a name.
        let bob = PusherClient(
            options: PusherClientOptions(
                key: "pushtop-key", host: "127.0.0.1", port: port, connection: ConnectionConfiguration(useTLS: false),
                authorizer: EndpointAuthorizer(
                    url: "http://127.0.0.1:\(port)/pusher/auth", parameters: [("user_id", "bob")])))
        let recorder = EventRecorder(bob)
        try await bob.subscribe("presence-lobby")
        await bob.connect()
        try await recorder.wait { $0.isSubscribed("presence-lobby") }
        try await tmux.waitFor("bob in the members pane") { $0.contains("● bob") }

        tmux.send("2")
        tmux.send("G")  // presence-lobby is the last channel the demo opens
        tmux.send("t")
        try await tmux.waitFor(text: "client-")
        tmux.send("hello", literal: true)
        tmux.send("Enter")
        tmux.send("C-u")
        tmux.send(#"{"from":"keyboard"}"#, literal: true)
        tmux.send("Enter")
        let received = try await recorder.wait {
            if case .event(let e) = $0 { return e.name == "client-hello" } else { return false }
        }
        if case .event(let e) = received {
            #expect(e.channel == "presence-lobby")
            #expect(e.userID == "tester")
            #expect(e.data == ["from": "keyboard"])
        }
        await bob.disconnect()
        try await tmux.waitFor("bob to leave") { !$0.contains("● bob") }
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }

    @Test func signingInFromTheKeyboardShowsTheUserAndEventsSentToThem() async throws {
        let tmux = try start("demo")
        defer { tmux.stop() }
        let screen = try await tmux.waitFor("the demo", timeout: 15) {
            $0.contains("tester (me)") && $0.contains("127.0.0.1:")
        }
        let port = try #require(serverPort(screen))
        tmux.send("i")
        try await tmux.waitFor("the signed-in user") { screen in
            screen.split(separator: "\n").contains { $0.contains("User") && $0.contains("● tester") }
        }
        // The app's server sends to the user, as the SDKs' send_to_user does; retried until the user's channel
        // is subscribed.
        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: "1", key: "pushtop-key", secret: "pushtop-secret", host: "127.0.0.1", port: port))
        var shown = false
        for _ in 0..<50 where !shown {
            _ = try await api.sendToUser("tester", event: "invoice-paid", data: #"{"amount":42}"#)
            try await Task.sleep(for: .milliseconds(200))
            let now = tmux.capture()
            shown = now.contains("@tester") && now.contains("invoice-paid")
        }
        #expect(shown, "no user event in the log:\n\(tmux.capture())")
        tmux.send("i")
        try await tmux.waitFor("signed out") { screen in
            !screen.split(separator: "\n").contains { $0.contains("User") && $0.contains("● tester") }
        }
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }

    @Test func dashboardNeedsATerminal() async throws {
        let output = try TmuxSession.run(
            ["sh", "-c", "\(Self.binary) demo < /dev/null 2>&1; echo EXIT=$?"], capture: true)
        #expect(output.contains("needs a terminal"))
        #expect(output.contains("EXIT=64"))
    }
}
