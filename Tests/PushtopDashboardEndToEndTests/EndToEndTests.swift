import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real dashboard (the `dashboard-preview` binary on its synthetic feed) driven in tmux.
@Suite(.serialized) struct EndToEndTests {
    func start(_ arguments: String = "", columns: Int = 140, rows: Int = 42) throws -> TmuxSession {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        let binary = previewBinary()
        try #require(FileManager.default.isExecutableFile(atPath: binary), "no dashboard-preview at \(binary)")
        return try TmuxSession(
            command: "\(binary) --no-mouse --save-dir /tmp \(arguments)", columns: columns, rows: rows)
    }

    @Test func startsWithConnectedStateChannelsMembersAndAMovingLog() async throws {
        let tmux = try start()
        defer { tmux.stop() }
        let screen = try await tmux.waitFor("all panes") {
            $0.contains("● connected") && $0.contains("1 Connection") && $0.contains("2 Channels")
                && $0.contains("3 Members · presence-lobby") && $0.contains("4 Event log")
                && $0.contains("price-update")
        }
        #expect(screen.contains("alice"))
        #expect(screen.contains("you (me)"))
        #expect(screen.contains("李小龙"))
        // The log moves: the newest line changes.
        let lastLine = { (s: String) in
            s.split(separator: "\n").filter { $0.contains("┃ ") }.last.map(String.init) ?? ""
        }
        let before = lastLine(screen)
        try await tmux.waitFor("the log to move") { lastLine($0) != before }
        tmux.send("q")
        let after = try await tmux.waitForExit()
        #expect(after.contains("EXIT=0"))
        #expect(terminalIsSane(after), "stty after exit:\n\(after)")
    }

    @Test func filterPauseAndHelp() async throws {
        let tmux = try start()
        defer { tmux.stop() }
        try await tmux.waitFor(text: "price-update")
        tmux.send("/")
        try await tmux.waitFor(text: "Filter:")
        tmux.send("order", literal: true)
        tmux.send("Enter")
        let filtered = try await tmux.waitFor("the filter title") { $0.contains("/order (") && $0.contains("matches)") }
        // The log pane's rows: what follows "┃ " and starts with a time.
        let logLines = filtered.split(separator: "\n").compactMap { line -> Substring? in
            guard let r = line.range(of: "┃ ") else { return nil }
            let rest = line[r.upperBound...]
            return rest.first?.isNumber == true ? rest : nil
        }
        #expect(!logLines.isEmpty)
        #expect(logLines.allSatisfy { $0.contains("order") }, "unfiltered lines:\n\(logLines.joined(separator: "\n"))")
        tmux.send("p")
        try await tmux.waitFor(text: "PAUSED +")
        tmux.send("p")
        try await tmux.waitFor("pause to end") { !$0.contains("PAUSED") }
        tmux.send("Escape")
        try await tmux.waitFor("the filter to clear") { !$0.contains("/order (") }
        tmux.send("?")
        try await tmux.waitFor(text: "send a client event on the selected private/presence channel")
        tmux.send("Escape")
        tmux.send("q")
        #expect(try await tmux.waitFor(text: "EXIT=").contains("EXIT=0"))
    }

    @Test func subscribeAndUnsubscribeFromTheKeyboard() async throws {
        let tmux = try start()
        defer { tmux.stop() }
        try await tmux.waitFor(text: "presence-lobby")
        tmux.send("s")
        try await tmux.waitFor(text: "Subscribe to channel:")
        tmux.send("bad name", literal: true)
        try await tmux.waitFor(text: "channel name has ' ' at position 4")
        tmux.send("C-u")
        tmux.send("news-feed", literal: true)
        tmux.send("Enter")
        try await tmux.waitFor("news-feed subscribed") {
            $0.contains("news-feed") && !$0.contains("Subscribe to channel:")
        }
        try await tmux.unsubscribeLastChannel("news-feed", row: "news-feed")
        tmux.send("q")
        #expect(try await tmux.waitFor(text: "EXIT=").contains("EXIT=0"))
    }

    @Test func signingInShowsTheUserAndTheWatchlist() async throws {
        let tmux = try start()
        defer { tmux.stop() }
        try await tmux.waitFor(text: "presence-lobby")
        tmux.send("i")
        let screen = try await tmux.waitFor("the user and the watchlist") {
            $0.contains("● you") && $0.contains("Watchlist 1/2 online") && $0.contains("● alice")
                && $0.contains("○ zed")
        }
        #expect(screen.contains("User"))
        tmux.send("i")
        try await tmux.waitFor("signed out") { !$0.contains("Watchlist") }
        tmux.send("q")
        #expect(try await tmux.waitFor(text: "EXIT=").contains("EXIT=0"))
    }

    @Test func resizeToTinyAndBack() async throws {
        let tmux = try start()
        defer { tmux.stop() }
        try await tmux.waitFor(text: "1 Connection")
        tmux.resize(columns: 30, rows: 8)
        try await tmux.waitFor(text: "terminal too small")
        tmux.resize(columns: 140, rows: 42)
        try await tmux.waitFor("the panes again") { $0.contains("1 Connection") && !$0.contains("terminal too small") }
        tmux.resize(columns: 61, rows: 17)
        try await tmux.waitFor(text: "4 Event log")
        tmux.send("C-c")
        let after = try await tmux.waitForExit()
        #expect(after.contains("EXIT=0"))
        #expect(terminalIsSane(after))
    }

    @Test func sigtermAndCrashSignalsRestoreTheTerminal() async throws {
        for (signal, status) in [("TERM", 143), ("SEGV", 139)] {
            let pidFile = "/tmp/pushtop-dash-e2e-\(getpid())-\(signal).pid"
            try #require(TmuxSession.isAvailable)
            let binary = previewBinary()
            let session = try TmuxSession(command: "sh -c 'echo $$ > \(pidFile); exec \(binary) --no-mouse'")
            defer { session.stop() }
            try await session.waitFor(text: "1 Connection")
            let pid = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
            kill(pid_t(pid)!, signal == "TERM" ? SIGTERM : SIGSEGV)
            let after = try await session.waitForExit(timeout: 20)
            #expect(after.contains("EXIT=\(status)"), "after SIG\(signal):\n\(after)")
            #expect(terminalIsSane(after), "stty after SIG\(signal):\n\(after)")
            try? FileManager.default.removeItem(atPath: pidFile)
        }
    }

    /// The firehose never stops, so a frozen keyboard would never answer: each key gets the waits' usual 10 s, what
    /// a loaded machine may need (how fast a key is answered is the benchmarks' business).
    @Test func aFirehoseDoesNotFreezeTheKeyboard() async throws {
        let tmux = try start("--rate 5000 --capacity 2000")
        defer { tmux.stop() }
        try await tmux.waitFor("the ring buffer to drop") { $0.contains("dropped ") }
        tmux.send("/")
        try await tmux.waitFor(text: "Filter:")
        tmux.send("Escape")
        tmux.send("k")
        try await tmux.waitFor(text: " new ↓ End")
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }

    @Test func ctrlSSavesTheLogAndShowsThePath() async throws {
        let tmux = try start()
        defer { tmux.stop() }
        try await tmux.waitFor(text: "price-update")
        tmux.send("C-s")
        let screen = try await tmux.waitFor(text: "entries to /tmp/pushtop-log-")
        let line = screen.split(separator: "\n").first { $0.contains("entries to /tmp/pushtop-log-") } ?? ""
        let path = String(line[line.range(of: "/tmp/pushtop-log-")!.lowerBound...]).trimmingCharacters(in: .whitespaces)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"event\":\"price-update\""))
        try? FileManager.default.removeItem(atPath: path)
        tmux.send("q")
        try await tmux.waitFor(text: "EXIT=")
    }
}
