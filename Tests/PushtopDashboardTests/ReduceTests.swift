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
        _ = state.reduce(.client([
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
        _ = state.reduce(.client([
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
