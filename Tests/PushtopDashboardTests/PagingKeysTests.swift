import PusherProtocol
import PushtopDashboardFakes
import Testing

@testable import PushtopDashboard

/// Every list and scrolling view takes the key table's moves: PgDn/PgUp a page, g/Home the top, G/End the end.
struct PagingKeysTests {
    func browserWith(_ n: Int) -> DashboardState {
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0, configuration: .init(hasAPI: true))
        _ = state.reduce(.client(ScriptedFeed.demoOpening))
        state.press(.char("b"))
        let list = (0..<n).map {
            OccupiedChannel(name: "room-" + String(100_000 + $0).dropFirst(), subscriptionCount: $0 % 7)
        }
        _ = state.reduce(.occupiedChannels(list, error: nil))
        return state
    }

    @Test func theChannelBrowserPagesAndJumps() {
        var state = browserWith(10_000)
        let page = ChannelBrowserView.pageRows(state)
        #expect(page > 10)
        state.press(.pageDown)
        #expect(state.browser.selected == page)
        state.press(.pageDown, .pageUp)
        #expect(state.browser.selected == page)
        state.press(.char("G"))
        #expect(state.browser.selected == 9_999)
        #expect(frame(state).contains("room-09999"))
        state.press(.char("g"))
        #expect(state.browser.selected == 0)
        state.press(.end)
        #expect(state.browser.selected == 9_999)
        state.press(.home)
        #expect(state.browser.selected == 0)
        #expect(state.view == .channelBrowser)
        // A refresh that reorders the list keeps the selection on its channel.
        state.press(.char("j"), .char("j"))
        let selected = state.browser.rows[state.browser.selected].name
        _ = state.reduce(
            .occupiedChannels(
                [OccupiedChannel(name: "aaa-first", subscriptionCount: 1)]
                    + (0..<10_000).map {
                        OccupiedChannel(name: "room-" + String(100_000 + $0).dropFirst(), subscriptionCount: 1)
                    },
                error: nil))
        #expect(state.browser.rows[state.browser.selected].name == selected)
    }

    @Test func theDetailViewOfABigEventPagesAndJumps() {
        var state = demoState()
        let items = (0..<400).map { #"{"n":\#($0),"name":"item \#($0)"}"# }.joined(separator: ",")
        _ = state.reduce(.client([event("chat", "big", #"{"items":[\#(items)],"last":"THE-END"}"#)]))
        state.press(.char("4"), .enter)
        #expect(frame(state).contains("\"items\": ["))
        let metrics = DetailOverlayView.scrollMetrics(state, seq: state.log.nextSeq - 1)
        #expect(metrics.page > 20)
        state.press(.pageDown)
        guard case .detail(_, let scroll) = state.overlay else {
            Issue.record("the detail view closed")
            return
        }
        #expect(scroll == metrics.page)
        state.press(.char("G"))
        #expect(frame(state).contains(#""big"}"#))  // the end of the frame, the last line
        state.press(.char("k"))
        #expect(frame(state).contains("THE-END"))  // one line up from the end still shows the end
        state.press(.char("g"))
        #expect(frame(state).contains("event    big"))
        state.press(.end)
        #expect(frame(state).contains("THE-END"))
        state.press(.home)
        #expect(frame(state).contains("event    big"))
        guard case .detail = state.overlay else {
            Issue.record("Home/End closed the detail view")
            return
        }
    }

    @Test func theMembersPaneJumpsAndComesBackUpAtOnce() {
        var state = demoState()
        _ = state.reduce(
            .client(
                (0..<100).map {
                    .memberAdded(
                        channel: "presence-lobby",
                        member: PresenceMember(userID: "user-\(String(1000 + $0).dropFirst())"))
                }))
        state.press(.char("3"), .char("G"))
        #expect(frame(state).contains("user-099"))
        let bottom = state.memberTop
        state.press(.char("k"))
        #expect(state.memberTop == bottom - 1)
        state.press(.pageUp)
        #expect(state.memberTop < bottom - 1)
        state.press(.char("g"))
        #expect(state.memberTop == 0)
        state.press(.pageDown)
        #expect(state.memberTop > 0)
    }

    @Test func theChannelsPanePagesAndJumps() {
        var state = demoState()
        _ = state.reduce(
            .client((0..<60).map { .subscribed(channel: "room-\(String(100 + $0).dropFirst())", presence: nil) }))
        state.press(.char("2"), .char("g"))
        #expect(state.selectedChannel == 0)
        state.press(.pageDown)
        #expect(state.selectedChannel == max(1, state.pageSize - 1))
        state.press(.end)
        #expect(state.selectedChannel == state.channels.count - 1)
        #expect(frame(state).contains("room-59"))
        state.press(.home)
        #expect(state.selectedChannel == 0)
        state.press(.char("G"), .pageUp)
        #expect(state.selectedChannel == state.channels.count - 1 - max(1, state.pageSize - 1))
    }

    @Test func theLogJumpsToTheTopAndFollowsAgain() {
        var state = demoState()
        _ = state.reduce(.client((0..<200).map { event("chat", "message", "line \($0)") }))
        state.press(.char("4"), .char("g"))
        #expect(state.logSelected == state.log.firstSeq)
        state.press(.pageDown)
        #expect(state.logSelected! > state.log.firstSeq + 10)
        state.press(.char("G"))
        #expect(state.isFollowing)
        state.press(.home)
        #expect(state.logSelected == state.log.firstSeq)
        state.press(.end)
        #expect(state.isFollowing)
    }

    @Test func theWireInspectorListAndFramePageAndJump() {
        var state = demoState()
        let frames = (0..<300).map { i in
            WireFrame(
                time: t0 + Double(i), direction: .inbound, kind: .text, size: 10,
                text: #"{"event":"e\#(i)","data":"{}"}"#)
        }
        let items = (0..<200).map { "\"item \($0)\"" }.joined(separator: ",")
        let big =
            #"{"event":"big","channel":"chat","data":"{\"items\":[\#(items.replacingOccurrences(of: "\"", with: "\\\""))],\"last\":\"THE-END\"}"}"#
        _ = state.reduce(
            .frames(
                frames + [
                    WireFrame(
                        time: t0 + 400, direction: .inbound, kind: .text, size: big.utf8.count,
                        text: big)
                ], droppedUpstream: 0))
        state.press(.char("w"), .char("g"))
        #expect(frame(state).contains(#""event":"e0""#))
        state.press(.pageDown, .char("G"))
        #expect(state.wire.isFollowing)
        state.press(.enter)
        #expect(frame(state).contains("Frame #"))
        state.press(.char("G"))
        #expect(frame(state).contains("THE-END"), "\(frame(state))")
        state.press(.char("g"))
        #expect(frame(state).contains("direction"))
        state.press(.end)
        #expect(frame(state).contains("THE-END"))
        state.press(.pageUp)
        #expect(!frame(state).contains("THE-END"))
    }

    @Test func theHelpScrollsOnAShortTerminalAndListsEndOnce() {
        var state = demoState(size: Size(rows: 24, columns: 80))
        state.press(.char("?"))
        var text = frame(state)
        #expect(text.contains("Keys") && text.contains("PgDn more"))
        // The table's last view key (the console's) is below the fold.
        #expect(!text.contains("close row / stop following"))
        state.press(.char("G"))
        text = frame(state)
        #expect(text.contains("close row / stop following"), "\(text)")
        #expect(!text.contains("PgDn more"))
        state.press(.char("g"))
        #expect(frame(state).contains("focus the next pane"))
        state.press(.pageDown)
        #expect(!frame(state).contains("focus the next pane"))
        #expect(state.overlay == .help)
        // End/G once, saying both things it does.
        state = demoState(size: Size(rows: 60, columns: 140))
        state.press(.char("?"))
        text = frame(state)
        #expect(text.components(separatedBy: "go to the end").count == 2, "\(text)")
        #expect(text.contains("go to the end (the log follows again)"))
    }

    @Test func theAuthInspectorJumps() {
        var state = DashboardState(
            size: Size(rows: 20, columns: 100), now: t0,
            configuration: .init(credentials: KnownCredentials(key: "k", secret: "s")))
        let body = #"{"auth":"k:abc","channel_data":"\#(String(repeating: "x", count: 2000))"}"#
        _ = state.reduce(
            .client([
                .state(StateChange(previous: .connecting, current: .connected, socketID: "1.1")),
                .subscribing(channel: "private-a"),
                .authorization(
                    AuthorizationTrace(
                        channel: "private-a", socketID: "1.1", authorizer: "https://app/auth",
                        startedAt: t0, duration: 0.05, status: 200, responseExcerpt: body, auth: "k:abc",
                        channelData: nil)),
            ]))
        state.press(.char("2"), .char("g"), .char("a"))
        #expect(state.view == .authInspector)
        state.press(.char("G"))
        let last = AuthInspectorView.scrollMetrics(state).last
        #expect(last > 0)
        #expect(state.auth.scroll == last)
        state.press(.char("k"))
        #expect(state.auth.scroll == last - 1)
        state.press(.home)
        #expect(state.auth.scroll == 0)
        state.press(.pageDown)
        #expect(state.auth.scroll > 1)
    }

    @Test func homeEndAndDeleteSequencesAreKeysWhateverTheTerminfoSays() {
        func keys(_ text: String) -> [Key] {
            EscapeSequences.combine(keys: text.map { $0 == "\u{1B}" ? Key.escape : Key.char($0) })
        }
        for (sequence, key) in [
            ("\u{1B}[1~", Key.home), ("\u{1B}[4~", .end), ("\u{1B}[H", .home), ("\u{1B}[F", .end),
            ("\u{1B}OH", .home), ("\u{1B}OF", .end), ("\u{1B}[3~", .delete), ("\u{1B}[7~", .home), ("\u{1B}[8~", .end),
        ] {
            #expect(keys(sequence) == [key], "\(sequence.debugDescription)")
        }
        #expect(keys("a\u{1B}[1~b\u{1B}[4~") == [.char("a"), .home, .char("b"), .end])
        // A lone Esc stays Esc; Esc then other text stays as typed.
        #expect(keys("\u{1B}") == [.escape])
        #expect(keys("\u{1B}x") == [.escape, .char("x")])
        // Home in the channel browser moves, never closes it.
        var state = PagingKeysTests().browserWith(50)
        for key in keys("\u{1B}[4~") { state.press(key) }
        #expect(state.view == .channelBrowser && state.browser.selected == 49)
    }

    @Test func theLogTitleIsShortenedNotCutAt80Columns() {
        var state = demoState(size: Size(rows: 24, columns: 80), capacity: 100)
        _ = state.reduce(.client((0..<14_883).map { event("ticker", "price-update", "\($0)") }))
        state.press(.char("4"), .char("k"))
        _ = state.reduce(.dropped(1234))
        let log = state.layout!.log
        let top = canvas(state).line(log.row)
        #expect(top.contains("4 Event log"))
        // The badge ends with a space before the corner: whole, not cut.
        #expect(top.hasSuffix(" ━┓") || top.hasSuffix(" ─┐"), "\(top)")
        #expect(top.contains("dropped") || top.contains("-"), "\(top)")
        #expect(top.contains("new"), "\(top)")
    }
}
