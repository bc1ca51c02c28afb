import Foundation
import PushtopDashboard
import Testing

@testable import PusherChannels

/// The real `pushtop demo` in tmux (with `TERM=xterm-256color`, as inside tmux by mistake): hostile payloads
/// keep every border in its column, the popup leaves no stray cells, Ctrl-L repaints; Home and End move
/// instead of acting like Esc.
@Suite(.serialized) struct PayloadEndToEndTests {
    func demo(columns: Int = 140, rows: Int = 42) throws -> TmuxSession {
        try DemoEndToEndTests.withEmptyHome("demo", columns: columns, rows: rows)
    }

    /// Rows that end in a border are exactly the terminal's width, as tmux laid them out.
    func misaligned(_ screen: String, columns: Int) -> [String] {
        screen.split(separator: "\n").map(String.init).filter { row in
            guard let last = row.last, "┃│┓┐┛┘".contains(last) else { return false }
            return DisplayWidth.of(row) != columns
        }
    }

    @Test func hostilePayloadsKeepTheBordersAndThePopupLeavesNoStrayCells() async throws {
        let tmux = try demo()
        defer { tmux.stop() }
        let screen = try await tmux.waitFor("the demo", timeout: 20) {
            $0.contains("tester (me)") && $0.contains("127.0.0.1:")
        }
        let r = try #require(screen.range(of: "127.0.0.1:"))
        let port = try #require(Int(screen[r.upperBound...].prefix { $0.isNumber }))
        let api = PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: "1", key: "pushtop-key", secret: "pushtop-secret", host: "127.0.0.1", port: port))
        let family = "👩\u{200D}👩\u{200D}👧\u{200D}👦"
        let data =
            #"{"kind":"hostile","family":"\#(family)\#(family)","flag":"🏳\#u{FE0F}\#u{200D}🌈","tone":"👍\#u{1F3FD}","flags":"🇫🇷🇩🇪","csi":"a\#u{9B}31mb","text":"\#(String(repeating: "long value ", count: 30))"}"#
        _ = try await api.trigger(channels: ["chat"], event: "hostile", data: data)
        tmux.send("/")
        tmux.send("e:hostile", literal: true)
        tmux.send("Enter")
        var shown = try await tmux.waitFor("the hostile event in the log", timeout: 15) {
            $0.contains("hostile") && $0.contains("(1 match)")
        }
        #expect(misaligned(shown, columns: 140).isEmpty, "\(misaligned(shown, columns: 140))")
        #expect(shown.contains(#"{"kind":"hostile""#))  // keys in the order they came
        // Open and close the detail view three times: nothing stays behind.
        for _ in 0..<3 {
            tmux.send("Enter")
            shown = try await tmux.waitFor("the detail view") { $0.contains("Event #") && $0.contains("long value") }
            #expect(misaligned(shown, columns: 140).isEmpty, "\(misaligned(shown, columns: 140))")
            tmux.send("Escape")
            shown = try await tmux.waitFor("the detail view to close") { !$0.contains("Event #") }
        }
        #expect(
            !shown.unicodeScalars.contains {
                $0.value == 0x200D || $0.value == 0xFE0F || (0x80..<0xA0).contains($0.value)
            })
        #expect(misaligned(shown, columns: 140).isEmpty, "\(misaligned(shown, columns: 140))")
        tmux.send("C-l")
        shown = try await tmux.waitFor("the repaint") { $0.contains("4 Event log") }
        #expect(misaligned(shown, columns: 140).isEmpty)
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }

    @Test func homeAndEndMoveInsideTmuxAndNeverActLikeEsc() async throws {
        let tmux = try demo(columns: 80, rows: 24)
        defer { tmux.stop() }
        try await tmux.waitFor("the demo", timeout: 20) { $0.contains("tester (me)") }
        // The help scrolls at 80x24: End goes to its last page, Home back; it stays open.
        tmux.send("?")
        try await tmux.waitFor("the help's first page") { $0.contains("Keys") && $0.contains("PgDn more") }
        tmux.send("End")
        try await tmux.waitFor("the help's last page") {
            $0.contains("Keys") && $0.contains("close row / stop following")
        }
        tmux.send("Home")
        try await tmux.waitFor("the help's first page again") {
            $0.contains("Keys") && $0.contains("focus the next pane")
        }
        tmux.send("Escape")
        try await tmux.waitFor("the help to close") { !$0.contains("PgDn more") }
        // The channel browser stays open through End and Home.
        tmux.send("b")
        try await tmux.waitFor("the channel browser") {
            $0.contains("Channel browser") && $0.contains("presence-lobby")
        }
        tmux.send("End")
        tmux.send("Home")
        tmux.send("DC")  // Delete: not a key of the browser, and not Esc either
        // A key that must arrive after them and only works in the browser: the sort order changes there.
        tmux.send("o")
        try await tmux.waitFor("the browser, still open, sorted by subscribers") {
            $0.contains("Channel browser") && $0.contains("sorted by subscribers")
        }
        tmux.send("Escape")
        try await tmux.waitFor("the panes") { $0.contains("4 Event log") }
        tmux.send("q")
        #expect(try await tmux.waitForExit().contains("EXIT=0"))
    }
}
