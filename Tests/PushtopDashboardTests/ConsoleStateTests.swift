import PusherProtocol
import PushtopDashboardFakes
import Testing

@testable import PushtopDashboard

/// The debug console through `reduce` and its view: toggles, filter, pause, follow, frequently seen, counts.
struct ConsoleStateTests {
    let ms = Int64(t0 * 1000)

    func row(_ type: ConsoleRowType, at time: Int64? = nil, _ fill: (inout ConsoleRow) -> Void = { _ in }) -> ConsoleRow
    {
        var r = ConsoleRow(type: type, timeMs: time ?? Int64(t0 * 1000))
        fill(&r)
        return r
    }

    func console(_ update: ConsoleUpdate, size: Size = Size(rows: 42, columns: 140), capacity: Int = 50_000)
        -> DashboardState
    {
        var state = DashboardState(size: size, now: t0, configuration: .init(consoleCapacity: capacity))
        _ = state.reduce(.console(update))
        state.press(.char("C"))
        return state
    }

    func scenario() -> DashboardState {
        console(
            ConsoleUpdate(
                rows: ScriptedConsole.scenario(at: ms),
                snapshots: [
                    ConsoleSnapshot(
                        source: ScriptedConsole.node, node: "node-a", connections: 2,
                        occupiedChannels: ["market-data", "presence-lobby"], timeMs: ms)
                ],
                sources: [ConsoleSourceStatus(name: ScriptedConsole.node, kind: .serverFeed, state: .live)]))
    }

    /// The types of the rows on screen, in order.
    func shownTypes(_ state: DashboardState) -> [ConsoleRowType] {
        state.console.visibleSeqs(rows: 1000).compactMap { state.console.log.element(seq: $0)?.type }
    }

    @Test func cOpensTheConsoleFromThePanesAndItsKeyIsInTheHintsAndHelp() {
        var state = demoState()
        #expect(
            state.configuration.keyTable.hints(focus: .log).contains { $0.action == .console && $0.hint == "console" })
        state.press(.char("C"))
        #expect(state.view == .console)
        #expect(frame(state).contains("Console"))
        state.press(.char("?"))
        #expect(frame(state).contains("debug console: the server's side"))
        state.press(.escape, .char("C"))
        #expect(state.view == .panes)
    }

    @Test func aClientJudgesVerdictsShowAsTheyLandAndHideWithTheErrors() {
        var state = console(ConsoleUpdate(rows: []), size: Size(rows: 30, columns: 260))
        _ = state.reduce(
            .console(
                ConsoleUpdate(rows: [
                    row(.verdict) {
                        $0.rule = "client.reconnect.at-once-after-4200"
                        $0.verdict = "fail"
                        $0.reason = "expected a new connection at once after close 4200; got reconnected after 10.014 s"
                    }
                ])))
        let screen = frame(state)
        #expect(screen.contains("verdict"))
        #expect(screen.contains("fail · client.reconnect.at-once-after-4200 · expected a new connection at once"))
        state.press(.char("7"))  // errors, faults, verdicts
        #expect(!shownTypes(state).contains(.verdict))
    }

    @Test func typeTogglesHideAndShowTheirRows() {
        var state = scenario()
        let all = shownTypes(state)
        #expect(all.count == ScriptedConsole.scenario(at: ms).count)
        state.press(.char("1"))  // connections
        #expect(!shownTypes(state).contains(.connection) && !shownTypes(state).contains(.disconnection))
        #expect(frame(state).contains("1[ ] connections"))
        state.press(.char("7"), .char("8"))
        let types = shownTypes(state)
        #expect(!types.contains(.error) && !types.contains(.apiError) && !types.contains(.webhookSent))
        #expect(types.contains(.gap))  // always shown: rows are missing
        // Rows arriving while hidden are indexed under the toggles too.
        _ = state.reduce(.console(ConsoleUpdate(rows: [row(.connection) { $0.socketID = "9.9" }])))
        #expect(!shownTypes(state).contains(.connection))
        state.press(.char("1"))
        #expect(shownTypes(state).filter { $0 == .connection }.count == 3)
        state.press(.char("0"))
        #expect(shownTypes(state).count == all.count + 1)
    }

    @Test func theFilterSearchesChannelEventSocketUserAndData() {
        var state = scenario()
        func filtered(_ text: String) -> Int {
            state.press(.char("/"))
            _ = state.reduce(.key(.ctrl("u")))
            state.type(text)
            state.press(.enter)
            return state.console.visibleCount
        }
        #expect(filtered("presence-lobby") == 3)  // subscribed, member_added, client_error
        #expect(filtered("ORDER-CREATED") == 1)  // event, any case
        #expect(filtered("200.2") == 5)  // socket
        #expect(filtered("ada") == 2)  // user
        #expect(filtered("teapot") == 1)  // data
        #expect(frame(state).contains("/teapot (1 match)"))
        state.press(.escape)
        #expect(state.console.filter.isEmpty && state.view == .console)
        state.press(.escape)
        #expect(state.view == .panes)
    }

    @Test func pauseHoldsTheRowsAndCountsTheNewOnes() {
        var state = scenario()
        let before = state.console.visibleCount
        state.press(.char("p"))
        _ = state.reduce(
            .console(ConsoleUpdate(rows: (0..<7).map { ScriptedConsole.streamRow($0 * 10, at: ms + 100) })))
        #expect(state.console.visibleCount == before)
        #expect(state.console.newWhilePaused == 7)
        #expect(frame(state).contains("PAUSED · 7 new"))
        // Hidden rows are not "new".
        state.press(.char("4"))
        #expect(state.console.newWhilePaused == 0)
        state.press(.char("4"), .char("p"))
        #expect(state.console.visibleCount == before + 7)
        #expect(!frame(state).contains("PAUSED"))
    }

    @Test func followingASocketShowsItsRowsAndItsLifetime() {
        var state = scenario()
        // Select the first row (socket 100.1 connecting) and follow its socket.
        state.press(.char("g"), .char("f"))
        #expect(state.console.followed?.socketID == "100.1")
        #expect(
            Set(state.console.visibleSeqs(rows: 100).compactMap { state.console.log.element(seq: $0)?.socketID }) == [
                "100.1"
            ])
        #expect(shownTypes(state) == [.connection, .subscribed, .clientEvent, .unsubscribed, .disconnection])
        let screen = frame(state)
        #expect(screen.contains("Console · socket 100.1"))
        #expect(screen.contains("socket 100.1: connected"))
        #expect(screen.contains("disconnected") && screen.contains("code 4200 going away by client"))
        #expect(screen.contains("left private-orders"))
        // Its later rows join at once.
        _ = state.reduce(.console(ConsoleUpdate(rows: [row(.connection, at: ms + 50) { $0.socketID = "100.1" }])))
        #expect(state.console.visibleCount == 6)
        state.press(.char("f"))
        #expect(state.console.followed == nil)
        #expect(state.console.visibleCount == ScriptedConsole.scenario(at: ms).count + 1)
    }

    @Test func frequentlySeenCountsTheLastMinuteOnly() {
        var f = ConsoleFrequency()
        for i in 0..<5 {
            f.add(
                row(.apiMessage, at: ms) {
                    $0.channel = "old"; $0.event = "e-old"; _ = i
                })
        }
        for _ in 0..<3 {
            f.add(
                row(.apiMessage, at: ms + 30_000) {
                    $0.channel = "a"; $0.event = "x"
                })
        }
        f.add(
            row(.apiMessage, at: ms + 40_000) {
                $0.channels = ["b", "a"]; $0.channel = "b"; $0.event = "y"
            })
        var top = f.top(5, nowMs: ms + 45_000)
        #expect(top.channels.map(\.0) == ["old", "a", "b"])
        #expect(top.channels.first?.1 == 5 && top.channels[1].1 == 4)
        top = f.top(5, nowMs: ms + 61_000)  // "old" left the window
        #expect(top.channels.map(\.0) == ["a", "b"])
        #expect(top.events.map(\.0) == ["x", "y"])
        // A bucket reused a minute later starts afresh.
        f.add(row(.apiMessage, at: ms + 60_000) { $0.channel = "new" })
        #expect(f.top(5, nowMs: ms + 61_000).channels.map(\.0) == ["a", "b", "new"])
        var state = scenario()
        state.press(.char("F"))
        let screen = frame(state)
        #expect(screen.contains("Frequently seen channels · 1 min"))
        #expect(screen.contains("private-orders"))
    }

    @Test func countsFollowTheSnapshotAndTheRowsSinceUnderChurn() {
        var counts = ConsoleCounts()
        counts.apply(
            ConsoleSnapshot(source: "n", node: "a", connections: 10, occupiedChannels: ["x", "y"], timeMs: 1000))
        // Before the snapshot: already in it.
        counts.apply(row(.connection, at: 999) { $0.node = "a" })
        // Churn: 50 connect, 45 leave, in order; channels occupied and vacated.
        for i in 0..<50 { counts.apply(row(.connection, at: 1000 + Int64(i)) { $0.node = "a" }) }
        for i in 0..<45 { counts.apply(row(.disconnection, at: 1100 + Int64(i)) { $0.node = "a" }) }
        let channelRows: [(ConsoleRowType, Int64, String)] = [
            (.vacated, 1200, "x"), (.occupied, 1201, "z"), (.occupied, 1202, "x"), (.vacated, 1203, "y"),
        ]
        for (type, time, channel) in channelRows {
            counts.apply(
                row(type, at: time) {
                    $0.channel = channel; $0.node = "a"
                })
        }
        // Another node's rows do not change a node's own tally; webhook rows never do.
        counts.apply(row(.connection, at: 1300) { $0.node = "b" })
        counts.apply(
            row(.occupied, at: 1300) {
                $0.channel = "w"; $0.source = .webhook
            })
        var total = counts.total!
        #expect(total.connections == 15 && total.channels == 2 && !total.approximate)
        #expect(counts.tallies[0].occupied == ["x", "z"])
        // A cluster-wide snapshot counts every node's rows.
        counts.apply(
            ConsoleSnapshot(source: "n", node: "a", connections: 3, occupiedChannels: [], timeMs: 2000, cluster: true))
        counts.apply(row(.connection, at: 2001) { $0.node = "b" })
        total = counts.total!
        #expect(total.connections == 4 && total.channels == 0)
    }

    @Test func aGapMakesTheCountsApproximateUntilTheNextSnapshot() {
        var state = console(
            ConsoleUpdate(
                rows: [row(.connection) { $0.node = "node-a" }],
                snapshots: [
                    ConsoleSnapshot(source: "s", node: "node-a", connections: 1, occupiedChannels: ["c"], timeMs: ms)
                ]))
        #expect(frame(state).contains("2 connections now · 1 channel occupied"))
        #expect(!frame(state).contains("approximate"))
        _ = state.reduce(.console(ConsoleUpdate(rows: [row(.gap, at: ms + 1) { $0.dropped = 12 }])))
        #expect(frame(state).contains("approximate (rows were missed) until the next snapshot"))
        #expect(frame(state).contains("12 rows missed"))
        _ = state.reduce(
            .console(
                ConsoleUpdate(snapshots: [ConsoleSnapshot(source: "s", node: "node-a", connections: 7, timeMs: ms + 2)])
            ))
        #expect(frame(state).contains("7 connections now · 0 channels occupied"))
        #expect(!frame(state).contains("approximate"))
        // Rows the dashboard itself dropped do the same.
        _ = state.reduce(.console(ConsoleUpdate(dropped: 3)))
        #expect(frame(state).contains("approximate") && frame(state).contains("dropped 3"))
    }

    @Test func withNoRowTheViewSaysWhatItCanAndCannotSee() {
        var state = console(ConsoleUpdate())
        #expect(
            frame(state).contains("Reverb sends no webhooks: connect to a pushtop serve (--node) or run pushtop in"))
        _ = state.reduce(
            .console(
                ConsoleUpdate(sources: [
                    ConsoleSourceStatus(name: "webhooks on 127.0.0.1:9000", kind: .webhooks, state: .live)
                ])))
        var screen = frame(state)
        #expect(screen.contains("no webhook received yet on 127.0.0.1:9000"))
        #expect(screen.contains("cannot see: connections"))
        _ = state.reduce(
            .console(
                ConsoleUpdate(sources: [
                    ConsoleSourceStatus(
                        name: "10.0.0.1:8080", kind: .serverFeed,
                        state: .unavailable("not a pushtop serve: no debug feed"))
                ])))
        screen = frame(state)
        #expect(screen.contains("10.0.0.1:8080: not a pushtop serve: no debug feed"))
        #expect(screen.contains("Reverb sends no webhooks"))
        // The first row replaces the message.
        _ = state.reduce(.console(ConsoleUpdate(rows: [row(.occupied) { $0.channel = "first-row" }])))
        #expect(frame(state).contains("first-row") && !frame(state).contains("Reverb"))
    }

    @Test func theRingIsBoundedAndCountsWhatItDropped() {
        var state = console(ConsoleUpdate(), capacity: 100)
        for chunk in 0..<10 {
            _ = state.reduce(
                .console(ConsoleUpdate(rows: (0..<50).map { ScriptedConsole.streamRow(chunk * 50 + $0, at: ms) })))
        }
        #expect(state.console.log.count == 100)
        #expect(state.console.received == 500)
        #expect(state.console.dropped == 400)
        #expect(frame(state).contains("dropped 400") && frame(state).contains("500 rows"))
    }

    @Test func enterShowsTheRowsWholeJSONAndChannelKeysBrowseOrSubscribe() {
        var state = scenario()
        // The API message (the 7th row).
        state.press(.char("g"))
        for _ in 0..<6 { state.press(.char("j")) }
        #expect(state.console.selectedRow?.row.type == .apiMessage)
        state.press(.enter)
        let screen = frame(state)
        #expect(screen.contains("Console row #6 · api_message"))
        #expect(screen.contains("\"event\": \"order-created\""))
        #expect(screen.contains("data (parsed)") && screen.contains("\"item\": \"teapot\""))
        // A short terminal scrolls the JSON.
        _ = state.reduce(.resize(Size(rows: 16, columns: 100)))
        state.press(.char("j"), .char("j"))
        #expect(state.console.detail?.scroll == 2)
        #expect(!frame(state).contains("row (JSON)"))
        _ = state.reduce(.resize(Size(rows: 42, columns: 140)))
        state.press(.escape)
        #expect(state.console.detail == nil && state.view == .console)
        #expect(state.press(.char("s")) == [.subscribe("private-orders")])
        #expect(state.channels.contains { $0.name == "private-orders" })
        state.press(.char("o"))
        #expect(state.view == .channelBrowser)
        #expect(state.browser.filter == "private-orders")
        // A row without a channel says so.
        state.press(.char("C"), .char("g"))
        #expect(state.press(.char("s")) == [])
        #expect(state.status?.text == "this row names no channel")
    }

    @Test func tinyTerminalsDrawWithoutCrashing() {
        var state = scenario()
        state.press(.char("F"), .char("g"), .char("f"), .enter)
        for size in [
            Size(rows: 16, columns: 60), Size(rows: 17, columns: 61), Size(rows: 5, columns: 10),
            Size(rows: 1, columns: 1),
        ] {
            _ = state.reduce(.resize(size))
            _ = frame(state)
            state.press(.char("j"), .pageDown, .escape, .char("k"), .enter)
        }
        _ = state.reduce(.resize(Size(rows: 16, columns: 60)))
        state.press(.escape, .escape)
        #expect(frame(state).contains("Console"))
    }
}

/// The seam between the console's sources and the dashboard's loop.
struct ConsoleFeedTests {
    @Test func takeUpdateGivesRowsSnapshotsDropsAndSourcesOnlyWhenChanged() {
        let feed = ConsoleFeed(capacity: 3)
        #expect(feed.takeUpdate() == nil)
        feed.update(ConsoleSourceStatus(name: "n", kind: .serverFeed, state: .connecting))
        feed.update(ConsoleSourceStatus(name: "n", kind: .serverFeed, state: .live))
        feed.post((0..<5).map { ConsoleRow(type: .connection, timeMs: Int64($0)) })
        feed.post(snapshot: ConsoleSnapshot(source: "n", connections: 4, timeMs: 0, cluster: true))
        let update = feed.takeUpdate()
        #expect(update?.rows.map(\.timeMs) == [0, 1, 2])
        #expect(update?.dropped == 2)
        #expect(update?.snapshots.first?.cluster == true)
        #expect(update?.sources == [ConsoleSourceStatus(name: "n", kind: .serverFeed, state: .live)])
        #expect(feed.takeUpdate() == nil)
        feed.post([ConsoleRow(type: .gap, timeMs: 9)])
        #expect(feed.takeUpdate()?.sources == nil)
    }
}
