import PusherProtocol
import PushtopDashboard
import Testing

/// Every pane drawn into a grid canvas and compared as text.
@Suite struct PaneViewTests {
    func sample() -> DashboardState {
        var state = demoState()
        _ = state.reduce(.client([.memberAdded(channel: "presence-lobby", member: PresenceMember(userID: "carol"))]))
        _ = state.reduce(.client([event("market-data", "price", #"{"p":"東京🚀"}"#, at: t0)]))
        _ = state.reduce(.tick(now: t0 + 1))
        return state
    }

    @Test func connectionPane() {
        let text = pane(Size(rows: 13, columns: 40)) { ConnectionPaneView.draw(sample(), in: $1, into: &$0) }
        #expect(
            text == """
                ┌ 1 Connection ────────────────────────┐
                │ State      ● connected               │
                │ Endpoint   127.0.0.1:6001 (no TLS)   │
                │ Socket     4242.1717                 │
                │ Uptime     0:01                      │
                │ Reconnects 0                         │
                │ Last close -                         │
                │ Action     -                         │
                │ Next try   -                         │
                │ Ping       6.0 ms                    │
                │ Last frame 1.0 s ago                 │
                │ Events/s                      █  1/s │
                └──────────────────────────────────────┘
                """)
    }

    @Test func connectionPaneStateIsColouredByState() {
        var canvas = GridCanvas(size: Size(rows: 13, columns: 40))
        ConnectionPaneView.draw(sample(), in: Rect(row: 0, column: 0, height: 13, width: 40), into: &canvas)
        #expect(canvas.role(row: 1, column: 14) == .stateConnected)
    }

    @Test func channelsPane() {
        let text = pane(Size(rows: 7, columns: 70)) { ChannelsPaneView.draw(sample(), in: $1, into: &$0) }
        #expect(
            text == """
                ┌ 2 Channels ──────────────────────────────────────────────────── 4 ─┐
                │ Channel              Kind     State       Events  Rate       Subs  │
                │ market-data          public   subscribed       1          █     -  │
                │ private-orders       private  subscribed       0                -  │
                │ cache-config         cache    subscribed       0                -  │
                │ presence-lobby       presence subscribed       0                5  │
                └────────────────────────────────────────────────────────────────────┘
                """)
    }

    @Test func channelsPaneShowsTheSelectionAndErrors() {
        var state = sample()
        _ = state.reduce(.client([.subscriptionError(channel: "private-x", status: 403, message: "no")]))
        state.press(.char("2"), .down)
        var canvas = GridCanvas(size: Size(rows: 8, columns: 70))
        ChannelsPaneView.draw(state, in: Rect(row: 0, column: 0, height: 8, width: 70), into: &canvas)
        #expect(canvas.role(row: 3, column: 3) == .selection)
        #expect(canvas.line(6).contains("private-x            private  error: HTTP 403: no"))
    }

    @Test func channelsPaneDropsColumnsWhenNarrow() {
        let text = pane(Size(rows: 4, columns: 30)) { ChannelsPaneView.draw(sample(), in: $1, into: &$0) }
        #expect(
            text == """
                ┌ 2 Channels ──────────── 4 ─┐
                │ Channel       State        │
                │ market-data   subscribed   │
                └────────────────────────────┘
                """)
    }

    @Test func membersPane() {
        let text = pane(Size(rows: 8, columns: 40)) { MembersPaneView.draw(sample(), in: $1, into: &$0) }
        #expect(
            text == """
                ┌ 3 Members · presence-lobby ────── 6 ─┐
                │ ● alice {"name":"Alice","role":"adm… │
                │ ● bob {"name":"Bob"}                 │
                │ ● carol                              │
                │ ● li {"name":"李小龙"}               │
                │ ● you (me) {"name":"You"}            │
                │ ● zoe {"mood":"🚀","name":"Zoë"}     │
                └──────────────────────────────────────┘
                """)
    }

    @Test func membersPaneHighlightsJoinsAndMarksMe() {
        var canvas = GridCanvas(size: Size(rows: 8, columns: 40))
        MembersPaneView.draw(sample(), in: Rect(row: 0, column: 0, height: 8, width: 40), into: &canvas)
        #expect(canvas.role(row: 3, column: 4) == .memberJoin)  // carol just joined
        #expect(canvas.role(row: 5, column: 4) == .memberMe)  // you
        #expect(canvas.role(row: 2, column: 4) == Role.member("bob"))
    }

    @Test func memberColoursAreStable() {
        #expect(Role.member("alice") == Role.member("alice"))
        #expect(Set(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].map(Role.member)).count > 3)
    }

    @Test func eventLogPane() {
        let text = pane(Size(rows: 6, columns: 80)) { EventLogPaneView.draw(sample(), in: $1, into: &$0) }
        #expect(
            text == """
                ┏ 4 Event log ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 8 ━┓
                ┃ 22:13:20.000 cache-config   subscribed     subscribed                        ┃
                ┃ 22:13:20.000 presence-lobby subscribed     subscribed (5 members)            ┃
                ┃ 22:13:20.000 presence-lobby member added   carol                             ┃
                ┃ 22:13:20.000 market-data    price          {"p":"東京🚀"}                    ┃
                ┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛
                """)
    }

    @Test func eventLogPaneColoursErrorsAndStateChanges() {
        var state = sample()
        _ = state.reduce(.client([.error(code: 4301, message: "rate limited")]))
        var canvas = GridCanvas(size: Size(rows: 6, columns: 80))
        EventLogPaneView.draw(state, in: Rect(row: 0, column: 0, height: 6, width: 80), into: &canvas)
        #expect(canvas.line(4).contains("4301: rate limited"))
        #expect(canvas.role(row: 4, column: 30) == .eventError)
        #expect(canvas.role(row: 1, column: 30) == .eventState)
    }

    @Test func footerShowsHintsFromTheKeyTable() {
        let text = pane(Size(rows: 1, columns: 80)) { FooterView.draw(sample(), in: $1, into: &$0) }
        #expect(text == " Tab  pane  End  follow  Enter  detail  s  sub  u  unsub  ?  help  q  quit")
    }

    @Test func footerShowsThePromptAndWhyTheInputIsRefused() {
        var state = sample()
        state.press(.char("s"))
        state.type("a b")
        let text = pane(Size(rows: 1, columns: 140)) { FooterView.draw(state, in: $1, into: &$0) }
        #expect(text.hasPrefix("Subscribe to channel: a b▏"))
        #expect(text.hasSuffix("✗ channel name has ' ' at position 2; allowed are A-Z a-z 0-9 _ - = @ , . ;"))
    }

    @Test func tooSmallScreen() {
        let text = pane(Size(rows: 8, columns: 30)) { c, _ in DashboardView.draw(sample(), into: &c) }
        #expect(
            text == """


                      terminal too small
                       30x8, need 60x16
                           q quits



                """)
    }

    @Test func helpOverlayListsEveryBinding() {
        var state = sample()
        state.press(.char("?"))
        // Every page of it (the views' keys are longer than a screen).
        var text = frame(state)
        for _ in 0..<5 {
            state.press(.pageDown)
            text += frame(state)
        }
        for binding in KeyTable.standard.bindings {
            #expect(text.contains(binding.keyLabel), "missing \(binding.keyLabel)")
            #expect(text.contains(binding.help), "missing \(binding.help)")
        }
    }
}

@Suite struct LayoutTests {
    @Test(arguments: [(60, 16), (80, 24), (100, 30), (140, 42), (200, 60), (61, 17), (333, 99)])
    func panesTileTheScreenWithoutOverlap(columns: Int, rows: Int) throws {
        let layout = try #require(Layout(size: Size(rows: rows, columns: columns)))
        var covered = Array(repeating: 0, count: rows * columns)
        for rect in [layout.header, layout.footer] + Pane.allCases.map(layout.rect(of:)) {
            #expect(rect.width >= 1 && rect.height >= 1)
            for r in rect.row..<rect.bottom {
                for c in rect.column..<rect.right { covered[r * columns + c] += 1 }
            }
        }
        #expect(covered.allSatisfy { $0 == 1 }, "every cell belongs to exactly one region at \(columns)x\(rows)")
        for pane in Pane.allCases {
            let rect = layout.rect(of: pane)
            #expect(rect.height >= 5 && rect.width >= 20, "\(pane) too small at \(columns)x\(rows): \(rect)")
        }
    }

    @Test(arguments: [(59, 42), (140, 15), (30, 8), (0, 0), (1, 1)])
    func belowTheMinimumThereIsNoLayout(columns: Int, rows: Int) {
        #expect(Layout(size: Size(rows: rows, columns: columns)) == nil)
    }

    @Test(arguments: [(60, 16), (80, 24), (140, 42), (30, 8), (10, 3), (1, 1), (0, 0)])
    func aFullFrameDrawsAtAnySizeWithoutTrouble(columns: Int, rows: Int) {
        var state = demoState(size: Size(rows: rows, columns: columns))
        _ = state.reduce(.client((0..<100).map { event("market-data", "e\($0)", "東京🚀 \($0)") }))
        let text = frame(state)
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == max(rows, 0) || rows == 0)
    }

    @Test func clickingFindsThePane() throws {
        let layout = try #require(Layout(size: Size(rows: 42, columns: 140)))
        #expect(layout.pane(atRow: 2, column: 2) == .connection)
        #expect(layout.pane(atRow: 40, column: 139) == .log)
        #expect(layout.pane(atRow: 0, column: 0) == nil)
    }
}

@Suite struct KeyTableTests {
    let table = KeyTable.standard

    @Test func everyKeyIsBoundOnceInItsScope() {
        var seen: [String: Int] = [:]
        for binding in table.bindings {
            for key in binding.keys { seen["\(binding.scope)|\(key)", default: 0] += 1 }
        }
        #expect(seen.values.allSatisfy { $0 == 1 }, "duplicates: \(seen.filter { $0.value > 1 })")
    }

    @Test func dispatchFindsActions() {
        #expect(table.action(for: .char("q"), focus: .log) == .quit)
        #expect(table.action(for: .ctrl("c"), focus: .channels) == .quit)
        #expect(table.action(for: .char("j"), focus: .log) == .down)
        #expect(table.action(for: .down, focus: .log) == .down)
        #expect(table.action(for: .char("3"), focus: .log) == .focus(.members))
        #expect(table.action(for: .enter, focus: .log) == .open)
        #expect(table.action(for: .enter, focus: .channels) == nil)
        #expect(table.action(for: .char("x"), focus: .log) == nil)
    }

    @Test func hintsFollowTheFocusedPane() {
        let logHints = table.hints(focus: .log).map(\.hint)
        let channelHints = table.hints(focus: .channels).map(\.hint)
        #expect(logHints.contains("follow"))
        #expect(!channelHints.contains("follow"))
        #expect(logHints.last == "quit")
    }

    @Test func everyRequiredKeyIsThere() {
        let required: [(Key, Action)] = [
            (.tab, .nextPane), (.backTab, .previousPane), (.char("s"), .subscribe),
            (.char("u"), .unsubscribe), (.char("t"), .trigger), (.char("c"), .toggleConnection),
            (.char("/"), .filter), (.char("p"), .pause), (.char("T"), .nextTheme), (.ctrl("s"), .saveLog),
            (.ctrl("l"), .redraw), (.char("?"), .help), (.end, .bottom),
        ]
        for (key, action) in required {
            #expect(table.action(for: key, focus: .log) == action, "\(key)")
        }
    }
}
