import Foundation
import PushtopTestSupport
import Testing

/// `pushtop --profile alpha --profile beta` in tmux against two real `pushtop serve` processes with different
/// app keys: both connections and their channels show, the log marks each event's app, and after `A`
/// selects beta a subscription reaches beta's server and not alpha's.
@Suite(.serialized) struct SeveralAppsEndToEndTests {
    /// The log pane's rows that contain `text`.
    func logRows(_ screen: String, containing text: String) -> [String] {
        screen.split(separator: "\n").compactMap { row -> String? in
            guard let i = row.firstIndex(of: "┃"), row[i...].contains(text) else { return nil }
            return String(row[i...])
        }
    }

    @Test func twoProfilesOpenTwoConnectionsAndKeysActOnTheSelectedApp() async throws {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        let alpha = try await ServeNode.start(key: "key-alpha", secret: "secret-alpha", appID: "1")
        defer { alpha.process.signal(SIGTERM) }
        let beta = try await ServeNode.start(key: "key-beta", secret: "secret-beta", appID: "1")
        defer { beta.process.signal(SIGTERM) }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-apps-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        try FileManager.default.createDirectory(atPath: home + "/pushtop", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        // One profile per server, each with its own channel.
        let config = [(alpha, "alpha", "orders"), (beta, "beta", "payments")].map { node, name, channel in
            "[profiles.\(name)]\nkey = \"\(node.key)\"\nhost = \"127.0.0.1\"\nport = \(node.port)\ntls = false\n"
                + "secret = \"\(node.secret)\"\nchannels = [\"\(channel)\"]\n"
        }.joined(separator: "\n")
        try config.write(toFile: home + "/pushtop/config.toml", atomically: true, encoding: .utf8)
        let recording = home + "/apps.jsonl"
        let environment =
            "env -u PUSHER_APP_KEY -u PUSHTOP_KEY -u PUSHTOP_PROFILE HOME=\(home) XDG_CONFIG_HOME=\(home) "
        let tmux = try TmuxSession(
            command: environment
                + "\(DemoEndToEndTests.binary) --profile alpha --profile beta --record \(recording)")
        defer { tmux.stop() }
        // Both connections, each app's channel under its heading.
        var screen = try await tmux.waitFor("both apps connected", timeout: 15) {
            $0.contains("1 Connections") && $0.contains("▸ alpha  ● connected  1 channel")
                && $0.contains("beta  ● connected  1 channel") && $0.contains("orders") && $0.contains("payments")
        }
        let lines = screen.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("▸alpha") && $0.contains("● connected") })
        #expect(lines.contains { $0.contains(" beta") && $0.contains("● connected") && !$0.contains("▸") })
        #expect(screen.contains("alpha 1/2"))
        // Events are marked with their app.
        try await tmux.waitFor("subscribed on both") { s in
            s.split(separator: "\n").filter { $0.contains("┃") && $0.contains("subscribed") }.count >= 2
        }
        try await alpha.trigger("orders", "from-alpha")
        try await beta.trigger("payments", "from-beta")
        screen = try await tmux.waitFor("both events in the log") {
            !logRows($0, containing: "from-alpha").isEmpty && !logRows($0, containing: "from-beta").isEmpty
        }
        #expect(logRows(screen, containing: "from-alpha").allSatisfy { $0.contains("alpha") && $0.contains("orders") })
        #expect(logRows(screen, containing: "from-beta").allSatisfy { $0.contains("beta") && $0.contains("payments") })
        // A selects beta; subscribing then happens on beta's connection.
        tmux.send("A")
        try await tmux.waitFor(text: "beta 2/2")
        tmux.send("s")
        try await tmux.waitFor(text: "Subscribe to channel:")
        tmux.send("news", literal: true)
        tmux.send("Enter")
        screen = try await tmux.waitFor("news subscribed under beta") { s in
            s.contains("beta  ● connected  2 channels")
                && s.split(separator: "\n").contains { $0.contains("news") && $0.contains("subscribed") }
        }
        #expect(screen.contains("▸ beta"))
        try await alpha.trigger("news", "news-on-alpha")
        try await beta.trigger("news", "news-on-beta")
        try await alpha.trigger("orders", "after-alpha")
        screen = try await tmux.waitFor("beta's news event and alpha's later one") {
            !logRows($0, containing: "news-on-beta").isEmpty && !logRows($0, containing: "after-alpha").isEmpty
        }
        #expect(logRows(screen, containing: "news-on-beta").allSatisfy { $0.contains("beta") })
        // Alpha never subscribed to news: its event on news was not delivered.
        #expect(logRows(screen, containing: "news-on-alpha").isEmpty)
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))

        // The recording names both apps and marks beta's lines; the replay groups them the same way.
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(text.contains(#""apps":[{"#) && text.contains(#""label":"beta""#))
        #expect(text.split(separator: "\n").contains { $0.contains("news-on-beta") && $0.contains(#""app":1"#) })
        #expect(!text.contains("secret-alpha") && !text.contains("secret-beta"))
        let replay = try TmuxSession(
            command: environment + "\(DemoEndToEndTests.binary) replay --speed 16 \(recording)")
        defer { replay.stop() }
        screen = try await replay.waitFor("the replay's end, grouped by app", timeout: 30) {
            $0.contains("■ REPLAY") && $0.contains("alpha  ● connected  1 channel")
                && $0.contains("beta  ● connected  2 channels")
        }
        #expect(logRows(screen, containing: "news-on-beta").allSatisfy { $0.contains("beta") })
        replay.send("q")
        #expect(try await replay.waitForExit().contains("EXIT=0"))
    }
}
