import PusherProtocol
import PushtopDashboard
import Testing

@Suite struct ReduceClientEventTests {
    @Test func connectedStateRecordsSocketAndUptimeStarts() {
        var state = demoState()
        #expect(state.connection.state == .connected)
        #expect(state.connection.socketID == "4242.1717")
        #expect(state.connection.connectedSince == t0)
        #expect(state.channels.map(\.name) == ["market-data", "private-orders", "cache-config", "presence-lobby"])
        _ = state.reduce(.tick(now: t0 + 75))
        #expect(frame(state).contains("Uptime     1:15"))
    }

    @Test func losingTheConnectionCountsAReconnectAndShowsTheCloseCodeAndCountdown() {
        var state = demoState()
        _ = state.reduce(
            .client([
                .closed(ConnectionClosure(code: 4201, reason: "", action: .reconnectNow)),
                .state(StateChange(previous: .connected, current: .connecting)),
                .connectingIn(delay: 3),
            ]))
        #expect(state.connection.reconnects == 1)
        #expect(state.connection.socketID == nil)
        #expect(state.rosters.isEmpty)
        #expect(state.channels.allSatisfy { $0.status == .subscribing })
        _ = state.reduce(.tick(now: t0 + 1))
        let text = frame(state)
        #expect(text.contains("Last close 4201 pong reply not received"))
        #expect(text.contains("Action     reconnect now"))
        #expect(text.contains("Next try   in 2.0 s"))
        #expect(text.contains("● connecting"))
    }

    @Test func eventsAreCountedPerChannelAndLogged() {
        var state = demoState()
        _ = state.reduce(
            .client([
                event("market-data", "price", #"{"p":1}"#), event("market-data", "price", #"{"p":2}"#),
                event("private-orders", "filled", "plain text"),
            ]))
        #expect(state.channels[0].events == 2)
        #expect(state.channels[1].events == 1)
        #expect(state.connection.totalEvents == 3)
        let newest = state.log.entry(seq: state.log.nextSeq - 1)!
        #expect(newest.event == "filled")
        #expect(newest.summary == "plain text")
    }

    @Test func subscriptionErrorShowsReasonOnTheChannel() {
        var state = demoState()
        _ = state.reduce(.client([.subscriptionError(channel: "private-x", status: 403, message: "forbidden")]))
        #expect(state.channels.last?.status == .error("HTTP 403: forbidden"))
        #expect(frame(state).contains("error: HTTP 403: forbidden"))
    }

    @Test func presenceRosterTracksJoinsAndLeavesWithABriefHighlight() {
        var state = demoState()
        _ = state.reduce(.client([.memberAdded(channel: "presence-lobby", member: PresenceMember(userID: "carol"))]))
        var roster = state.rosters["presence-lobby"]!
        #expect(roster.count == 6)
        #expect(roster.rows.first { $0.member.userID == "carol" }?.joinedAt == t0)
        _ = state.reduce(.client([.memberRemoved(channel: "presence-lobby", member: PresenceMember(userID: "bob"))]))
        roster = state.rosters["presence-lobby"]!
        #expect(roster.count == 5)
        #expect(roster.rows.contains { $0.member.userID == "bob" })  // still shown, leaving
        _ = state.reduce(.tick(now: t0 + 3))
        roster = state.rosters["presence-lobby"]!
        #expect(!roster.rows.contains { $0.member.userID == "bob" })
        #expect(roster.rows.allSatisfy { $0.joinedAt == nil })
    }

    @Test func addingAMemberTwiceOverwritesInsteadOfDuplicating() {
        var state = demoState()
        let m = PresenceMember(userID: "alice", userInfo: ["name": "Alice 2"])
        _ = state.reduce(.client([.memberAdded(channel: "presence-lobby", member: m)]))
        let rows = state.rosters["presence-lobby"]!.rows.filter { $0.member.userID == "alice" }
        #expect(rows.count == 1)
        #expect(rows[0].member.userInfo == ["name": "Alice 2"])
    }

    @Test func pongSetsTheRoundTrip() {
        var state = demoState()
        _ = state.reduce(.client([.pong(roundTrip: 0.0123)]))
        #expect(frame(state).contains("Ping       12 ms"))
    }

    @Test func theRingBufferDropsTheOldestAndCountsThem() {
        var state = demoState(capacity: 100)
        let batch = (0..<250).map { event("market-data", "e\($0)", "\($0)") }
        _ = state.reduce(.client(batch))
        #expect(state.log.count == 100)
        #expect(state.log.dropped == state.log.nextSeq - 100)
        #expect(state.log.entry(seq: state.log.nextSeq - 1)?.event == "e249")
        #expect(frame(state).contains("dropped \(state.log.dropped)"))
    }

    @Test func eventsDroppedBeforeTheDashboardAreShown() {
        var state = demoState()
        _ = state.reduce(.dropped(42))
        #expect(frame(state).contains("dropped 42"))
    }

    /// Throughput is a benchmark (`dashboard-preview --bench` prints reduce events/s), not a timed test: this checks
    /// that one large batch is taken whole.
    @Test func reduceTakesABatchOfFiveThousandEventsWhole() {
        var state = demoState()
        let batch = (0..<5000).map { event("market-data", "price-update", #"{"symbol":"BTC","price":\#($0)}"#) }
        _ = state.reduce(.client(batch))
        #expect(state.channels[0].events == 5000)
        #expect(state.log.count >= 5000 && frame(state).contains("4999"))
    }
}

@Suite struct ReduceKeyTests {
    @Test func tabAndNumbersMoveFocus() {
        var state = demoState()
        #expect(state.focus == .log)
        state.press(.tab)
        #expect(state.focus == .connection)
        state.press(.backTab, .backTab)
        #expect(state.focus == .members)
        state.press(.char("3"))
        #expect(state.focus == .members)
    }

    @Test func subscribePromptValidatesAndSaysWhy() {
        var state = demoState()
        state.press(.char("s"))
        #expect(state.prompt?.purpose == .subscribe)
        state.type("bad name")
        #expect(state.prompt?.error?.contains("' ' at position 4") == true)
        let refused = state.press(.enter)
        #expect(refused.isEmpty)
        #expect(state.prompt != nil)
        state.press(.ctrl("u"))
        state.type("market-data")
        #expect(state.prompt?.error == "already subscribed to market-data")
        state.press(.ctrl("u"))
        state.type("news")
        #expect(state.prompt?.error == nil)
        let effects = state.press(.enter)
        #expect(effects == [.subscribe("news")])
        #expect(state.prompt == nil)
        #expect(state.channels.last?.name == "news")
        #expect(state.channels.last?.status == .subscribing)
        _ = state.reduce(.client([.subscribed(channel: "news", presence: nil)]))
        #expect(state.channels.last?.status == .subscribed)
    }

    @Test func escapeCancelsAPrompt() {
        var state = demoState()
        state.press(.char("s"))
        state.type("abc")
        state.press(.escape)
        #expect(state.prompt == nil)
        #expect(!state.channels.contains { $0.name == "abc" })
    }

    @Test func unsubscribeRemovesTheSelectedChannel() {
        var state = demoState()
        state.press(.char("2"), .down)
        #expect(state.currentChannel?.name == "private-orders")
        let effects = state.press(.char("u"))
        #expect(effects == [.unsubscribe("private-orders")])
        #expect(!state.channels.contains { $0.name == "private-orders" })
        _ = state.reduce(.client([.unsubscribed(channel: "private-orders")]))  // idempotent
        #expect(state.channels.count == 3)
    }

    @Test func triggerNeedsAPrivateOrPresenceChannel() {
        var state = demoState()
        state.press(.char("2"))  // market-data (public) selected
        #expect(state.press(.char("t")).isEmpty)
        #expect(state.prompt == nil)
        #expect(state.status?.isError == true)
        #expect(state.status?.text.contains("public") == true)
    }

    @Test func triggerAsksForAValidNameThenJSON() {
        var state = demoState()
        state.press(.char("2"), .down, .down, .down)
        #expect(state.currentChannel?.name == "presence-lobby")
        state.press(.char("t"))
        #expect(state.prompt?.text == "client-")
        state.press(.ctrl("u"))
        state.type("typing")
        #expect(state.prompt?.error == "client event names start with 'client-'")
        #expect(state.press(.enter).isEmpty)
        state.press(.ctrl("u"))
        state.type("client-typing")
        state.press(.enter)
        #expect(state.prompt?.purpose == .triggerData(channel: "presence-lobby", event: "client-typing"))
        state.press(.ctrl("u"))
        state.type("{\"x\":")
        #expect(state.press(.enter).isEmpty)
        #expect(state.prompt?.error?.hasPrefix("not valid JSON") == true)
        state.type("1}")
        let effects = state.press(.enter)
        #expect(effects == [.trigger(channel: "presence-lobby", event: "client-typing", data: ["x": 1])])
        #expect(state.prompt == nil)
    }

    @Test func connectionKeyTogglesByState() {
        var state = demoState()
        #expect(state.press(.char("c")) == [.disconnect])
        _ = state.reduce(.client([.state(StateChange(previous: .connected, current: .disconnected))]))
        #expect(state.press(.char("c")) == [.connect])
    }

    @Test func quitKeysAndCtrlCEvenInAPrompt() {
        var state = demoState()
        #expect(state.press(.char("q")) == [.quit])
        state.press(.char("s"))
        #expect(state.press(.char("q")).isEmpty)  // typed into the prompt
        #expect(state.prompt?.text == "q")
        #expect(state.press(.ctrl("c")) == [.quit])
    }

    @Test func themeKeyCyclesThemes() {
        var state = demoState()
        #expect(state.press(.char("T")) == [.applyTheme("light")])
        #expect(state.press(.char("T")) == [.applyTheme("mono")])
        #expect(state.press(.char("T")) == [.applyTheme("default")])
    }

    @Test func saveRedrawAndHelp() {
        var state = demoState()
        #expect(state.press(.ctrl("s")) == [.saveLog])
        #expect(state.press(.ctrl("l")) == [.redraw])
        state.press(.char("?"))
        #expect(state.overlay == .help)
        state.press(.escape)
        #expect(state.overlay == .none)
    }

    @Test func savedLogIsJSONLines() throws {
        var state = demoState()
        _ = state.reduce(.client([event("market-data", "price", #"{"p":1}"#, user: "u1", at: t0)]))
        let line = try #require(state.logJSONLines().last)
        let json = try JSONValue(parsing: line)
        #expect(json["event"] == "price")
        #expect(json["channel"] == "market-data")
        #expect(json["data"] == ["p": 1])
        #expect(json["user_id"] == "u1")
    }

    @Test func clickFocusesThePaneUnderTheMouse() {
        var state = demoState()
        let layout = state.layout!
        _ = state.reduce(.mouse(.click(row: layout.members.row + 1, column: layout.members.column + 2)))
        #expect(state.focus == .members)
    }

    @Test func resizeBelowTheMinimumShowsTooSmallAndBack() {
        var state = demoState()
        _ = state.reduce(.resize(Size(rows: 8, columns: 30)))
        #expect(frame(state).contains("terminal too small"))
        _ = state.reduce(.resize(Size(rows: 42, columns: 140)))
        #expect(frame(state).contains("1 Connection"))
    }
}

@Suite struct ReduceLogTests {
    func stateWithEvents(_ n: Int) -> DashboardState {
        var state = demoState()
        _ = state.reduce(.client((0..<n).map { event("market-data", "e\($0)", "\($0)") }))
        return state
    }

    @Test func scrollingUpStopsFollowingAndShowsNewCountEndResumes() {
        var state = stateWithEvents(50)
        #expect(state.isFollowing)
        state.press(.up, .up)
        #expect(!state.isFollowing)
        let selected = state.log.entry(seq: state.logSelected!)!
        #expect(selected.event == "e47")
        _ = state.reduce(.client((50..<60).map { event("market-data", "e\($0)", "\($0)") }))
        #expect(state.newBelowSelection == 12)
        #expect(frame(state).contains("12 new ↓ End"))
        // The selection stays on the same entry while new ones arrive.
        #expect(state.log.entry(seq: state.logSelected!)?.event == "e47")
        state.press(.end)
        #expect(state.isFollowing)
    }

    @Test func pauseFreezesTheViewButKeepsCollecting() {
        var state = stateWithEvents(10)
        state.press(.char("p"))
        _ = state.reduce(.client((10..<20).map { event("market-data", "e\($0)", "\($0)") }))
        #expect(state.log.count > 20)
        let text = frame(state)
        #expect(text.contains("PAUSED +10"))
        #expect(text.contains("e9 "))
        #expect(!text.contains("e19"))
        state.press(.char("p"))
        #expect(frame(state).contains("e19"))
    }

    @Test func filterMatchesTextChannelOrEventWithCount() {
        var state = demoState()
        _ = state.reduce(
            .client([
                event("market-data", "price-update", #"{"symbol":"BTC"}"#),
                event("market-data", "price-update", #"{"symbol":"ETH"}"#),
                event("private-orders", "order-filled", #"{"symbol":"BTC"}"#),
            ]))
        state.press(.char("/"))
        state.type("btc")
        #expect(state.log.visibleCount == 2)  // live while typing
        state.press(.enter)
        #expect(frame(state).contains("/btc (2 matches)"))
        state.press(.char("/"), .ctrl("u"))
        state.type("c:private e:order")
        state.press(.enter)
        #expect(state.log.visibleCount == 1)
        // New entries are matched as they arrive.
        _ = state.reduce(.client([event("private-orders", "order-filled", "{}")]))
        #expect(state.log.visibleCount == 2)
        state.press(.escape)
        #expect(state.log.filter == nil)
    }

    @Test func enterOpensTheDetailViewWithPrettyJSONAndFrame() {
        var state = demoState()
        _ = state.reduce(.client([event("market-data", "price", #"{"b":[1,2],"a":"x"}"#, at: t0)]))
        state.press(.enter)
        guard case .detail = state.overlay else {
            Issue.record("no detail overlay")
            return
        }
        let text = frame(state)
        // Keys in the order they came: "b" first, "a" last (no comma after it).
        #expect(text.contains(#"  "b": ["#) && text.contains(#"  "a": "x""#) && !text.contains(#"  "a": "x","#))
        #expect(text.range(of: #""b": ["#)!.lowerBound < text.range(of: #""a": "x""#)!.lowerBound)
        #expect(text.contains(#"    1,"#))
        #expect(text.contains(#"{"channel":"market-data","data":"{\"b\":[1,2],\"a\":\"x\"}","event":"price"}"#))
        state.press(.escape)
        #expect(state.overlay == .none)
    }
}
