import Foundation
import PushtopTestSupport
import Testing

/// The debug console (`C`) in the real `dashboard-preview` under tmux, fed scripted rows and source states
/// (`--console MODE`): type toggles, the filter, following a socket, frequently seen, a row's JSON, the
/// "cannot see" message, and a tiny terminal.
@Suite(.serialized) struct ConsoleEndToEndTests {
    func preview(_ arguments: String, columns: Int = 140, rows: Int = 42) throws -> TmuxSession {
        try #require(TmuxSession.isAvailable, "tmux is needed for the end-to-end tests (scripts/install-deps)")
        return try TmuxSession(
            command: "\(previewBinary()) --no-mouse --save-dir /tmp \(arguments)", columns: columns, rows: rows)
    }

    /// Opens the console on the demo script and waits for its last scripted row.
    func openDemo(_ tmux: TmuxSession) async throws {
        try await tmux.waitFor(text: "price-update")
        tmux.send("C")
        try await tmux.waitFor("the console with the scenario") {
            $0.contains("Console") && $0.contains("webhook_problem") && $0.contains("1[x] connections")
        }
    }

    /// The preview with the console opened on the demo script, streaming `rate` rows a second (stopped if it
    /// does not open).
    func demoConsole(rate: Int) async throws -> TmuxSession {
        let tmux = try preview("--console demo --console-rate \(rate)")
        do {
            try await openDemo(tmux)
        } catch {
            tmux.stop()
            throw error
        }
        return tmux
    }

    /// Quits with `q` and expects the preview to exit cleanly.
    func quit(_ tmux: TmuxSession, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"), sourceLocation: sourceLocation)
    }

    /// The console's rows (between the column heads and the bottom border).
    func rows(_ screen: String) -> [String] {
        let lines = screen.split(separator: "\n").map(String.init)
        guard let head = lines.firstIndex(where: { $0.contains("time ") && $0.contains("summary") }) else { return [] }
        return lines[(head + 1)...].filter { !$0.contains("┗") && $0.contains(":") }
    }

    @Test func typeTogglesHideAndShowRows() async throws {
        let tmux = try await demoConsole(rate: 5)
        defer { tmux.stop() }
        tmux.send("4")  // API messages
        var screen = try await tmux.waitFor("API messages hidden") {
            $0.contains("4[ ] api") && !$0.contains("api_message")
        }
        #expect(screen.contains("client_event"))
        tmux.send("1")
        screen = try await tmux.waitFor("connections hidden too") {
            $0.contains("1[ ] connections") && !$0.contains("disconnection")
        }
        #expect(!rows(screen).contains { $0.contains(" connection ") })
        tmux.send("0")
        try await tmux.waitFor("every type again") {
            $0.contains("4[x] api") && $0.contains("1[x] connections") && $0.contains("api_message")
        }
        try await quit(tmux)
    }

    @Test func filterPauseAndTheRowsJSON() async throws {
        let tmux = try await demoConsole(rate: 5)
        defer { tmux.stop() }
        tmux.send("/")
        tmux.send("teapot", literal: true)
        tmux.send("Enter")
        // The footer can be drawn before the rows under it (a capture in the middle of a redraw): wait for both.
        var screen = try await tmux.waitFor("one match") {
            $0.contains("/teapot (1 match)") && rows($0).count == 1
        }
        #expect(rows(screen).first?.contains("order-created") == true, "\(screen)")
        tmux.send("Enter")
        screen = try await tmux.waitFor("the row's JSON") {
            $0.contains("· api_message") && $0.contains("\"event\": \"order-created\"") && $0.contains("data (parsed)")
        }
        #expect(screen.contains("\"item\": \"teapot\""))
        tmux.send("Escape")
        tmux.send("Escape")
        try await tmux.waitFor("the filter cleared") { !$0.contains("/teapot") && $0.contains("price-update") }
        // Pause: the stream keeps arriving and is counted.
        tmux.send("p")
        try await tmux.waitFor("new rows counted while paused") { screen in
            guard let r = screen.range(of: "PAUSED · ") else { return false }
            let n = Int(screen[r.upperBound...].prefix { $0.isNumber }) ?? 0
            return n >= 3
        }
        tmux.send("p")
        try await tmux.waitFor("resumed") { !$0.contains("PAUSED") }
        try await quit(tmux)
    }

    @Test func followASocketAndFrequentlySeen() async throws {
        let tmux = try await demoConsole(rate: 20)
        defer { tmux.stop() }
        tmux.send("g")  // the oldest row: socket 100.1 connecting
        tmux.send("f")
        let screen = try await tmux.waitFor("socket 100.1's lifetime") {
            $0.contains("Console · socket 100.1") && $0.contains("socket 100.1: connected")
                && $0.contains("code 4200 going away by client")
        }
        let shown = rows(screen)
        #expect(shown.count == 5)
        #expect(shown.allSatisfy { $0.contains("100.1") })
        tmux.send("f")
        try await tmux.waitFor("following stopped") { !$0.contains("Console · socket") && $0.contains("200.2") }
        tmux.send("F")
        try await tmux.waitFor("frequently seen") {
            $0.contains("Frequently seen channels · 1 min") && $0.contains("Frequently seen events · 1 min")
        }
        // The stream's channel and event soon lead (the scenario's private-orders has 6 rows).
        func first(after heading: String, in screen: String) -> String {
            let lines = screen.split(separator: "\n").map(String.init)
            guard let i = lines.firstIndex(where: { $0.contains(heading) }), i + 1 < lines.count else { return "" }
            return lines[i + 1]
        }
        try await tmux.waitFor("market-data and price-update first", timeout: 15) {
            first(after: "Frequently seen channels", in: $0).contains("market-data")
                && first(after: "Frequently seen events", in: $0).contains("price-update")
        }
        try await quit(tmux)
    }

    @Test func theCannotSeeMessageFollowsTheSources() async throws {
        for (mode, text) in [
            ("none", "Reverb sends no webhooks: connect to a pushtop serve (--node)"),
            ("webhooks", "no webhook received yet on 127.0.0.1:9000"),
            ("unavailable", "this server offers no debug feed"),
        ] {
            let tmux = try preview("--console \(mode)")
            defer { tmux.stop() }
            try await tmux.waitFor(text: "price-update")
            tmux.send("C")
            try await tmux.waitFor("the console's message for \(mode)") {
                $0.contains("Console") && $0.replacingOccurrences(of: "┃", with: "").contains(text)
            }
            try await quit(tmux)
        }
    }

    @Test func aTinyTerminalDoesNotCrash() async throws {
        let tmux = try await demoConsole(rate: 50)
        defer { tmux.stop() }
        tmux.send("F")
        tmux.send("g")
        tmux.send("f")
        tmux.send("Enter")
        tmux.resize(columns: 30, rows: 8)
        try await tmux.waitFor(text: "terminal too small")
        tmux.resize(columns: 61, rows: 17)
        try await tmux.waitFor("the console at 61x17") { $0.contains("Console") }
        tmux.send("Escape")
        tmux.send("j")
        tmux.resize(columns: 140, rows: 42)
        try await tmux.waitFor("the console at full size") { $0.contains("Console · socket 100.1") }
        tmux.send("q")
        let end = try await tmux.waitForExit()
        #expect(end.contains("EXIT=0"))
        #expect(terminalIsSane(end))
    }
}
