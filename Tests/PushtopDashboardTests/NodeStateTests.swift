import PusherProtocol
import Testing

@testable import PushtopDashboard

/// Several nodes of one app (`--node`) through `reduce` and the views: a row per node with canary latency, the
/// cross-node canary's misses, and presence rosters compared across nodes without false alarms under churn.
struct NodeStateTests {
    let a = "127.0.0.1:6001", b = "127.0.0.1:6002"
    let canary = "private-pushtop-canary-test"

    /// Two nodes, both connected and subscribed to the canary channel and presence-room.
    func twoNodes(interval: Double = 5) -> DashboardState {
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0, configuration: .init())
        state.setApps([AppSetup(label: a, hasAPI: true), AppSetup(label: b, hasAPI: true)])
        state.setNodes(NodeState(nodes: [a, b], canaryChannel: canary, interval: interval, canaryEnabled: true))
        for (app, socket) in [(0, "1.1"), (1, "2.2")] {
            _ = state.reduce(
                .client(
                    [
                        .state(StateChange(previous: .connecting, current: .connected, socketID: socket)),
                        .subscribing(channel: canary),
                        .subscribed(channel: canary, presence: nil),
                        .subscribed(
                            channel: "presence-room",
                            presence: PresenceSnapshot(me: "me", members: [PresenceMember(userID: "me")])),
                    ], app: app))
        }
        return state
    }

    /// Ticks the clock to `t` and returns the canaries it asks to publish.
    func tick(_ state: inout DashboardState, to t: Double) -> [NodeRequest] {
        requests(&state, to: t).filter { if case .publishCanary = $0 { true } else { false } }
    }

    /// Ticks the clock to `t` and returns every request to the nodes.
    func requests(_ state: inout DashboardState, to t: Double) -> [NodeRequest] {
        state.reduce(.tick(now: t)).compactMap { if case .nodes(let r) = $0 { r } else { nil } }
    }

    func canaryEvent(seq: Int, at time: Double, via: String = "x") -> ClientEvent {
        event(canary, NodeState.canaryEvent, #"{"seq":\#(seq),"via":"\#(via)"}"#, at: time)
    }

    func logTexts(_ state: DashboardState) -> [String] { state.log.entries.compactMap(\.dataText) }

    /// A node's row in the connection pane and the canary line under it.
    func nodeRows(_ state: DashboardState, _ node: String) -> String {
        let lines = frame(state).split(separator: "\n").map(String.init)
        guard
            let i = lines.firstIndex(where: {
                ($0.contains("▸\(node) ") || $0.contains("│ \(node) ")) && $0.contains("● ")
            }), i + 1 < lines.count
        else { return "" }
        return lines[i] + "\n" + lines[i + 1]
    }

    @Test func canariesRotateThroughTheNodesAndTheirLatencyShowsPerNode() throws {
        var state = twoNodes()
        let first = tick(&state, to: t0 + 2)
        #expect(
            first == [
                .publishCanary(
                    app: 0, channel: canary, event: NodeState.canaryEvent, data: #"{"seq":1,"via":"\#(a)"}"#, seq: 1)
            ])
        _ = state.reduce(.client([canaryEvent(seq: 1, at: t0 + 2.004)], app: 0))
        _ = state.reduce(.client([canaryEvent(seq: 1, at: t0 + 2.012)], app: 1))
        let second = tick(&state, to: t0 + 7)
        #expect(second.count == 1 && { if case .publishCanary(1, _, _, _, 2) = second[0] { true } else { false } }())
        // The canary channel is the dashboard's own: not among the app's channels, not in the log.
        #expect(!state.channels.contains { $0.name == canary })
        #expect(!state.log.entries.contains { $0.channel == canary })
        let screen = frame(state)
        #expect(screen.contains("2 nodes · A switches"), "\(screen)")
        #expect(
            nodeRows(state, a).contains("● connected   1.1")
                && nodeRows(state, a).contains("canary p50 4.0 ms p99 4.0 ms"), "\(screen)")
        #expect(
            nodeRows(state, b).contains("2.2") && nodeRows(state, b).contains("canary p50 12 ms p99 12 ms"), "\(screen)"
        )
    }

    @Test func aNodeThatMissesACanaryShowsWithinOneInterval() {
        var state = twoNodes()
        _ = tick(&state, to: t0 + 2)
        _ = state.reduce(.client([canaryEvent(seq: 1, at: t0 + 2.01)], app: 0))
        _ = tick(&state, to: t0 + 4.5)  // within the grace time: nothing yet
        #expect(!logTexts(state).contains { $0.contains("missed") })
        _ = tick(&state, to: t0 + 5.1)
        #expect(logTexts(state).contains("node \(b) missed canary 1 (published via \(a))"), "\(logTexts(state))")
        #expect(state.log.entries.last { $0.dataText?.contains("missed") == true }?.app == 1)
        #expect(nodeRows(state, b).contains("missed 1 (last #1)"), "\(nodeRows(state, b))")
    }

    @Test func missesWhileANodeReconnectsAreAwayNotMissed() {
        var state = twoNodes()
        _ = state.reduce(.client([.state(StateChange(previous: .connected, current: .connecting))], app: 1))
        // With a node down, the first canary waits 2 s for it, then goes anyway.
        #expect(tick(&state, to: t0 + 2).isEmpty)
        #expect(tick(&state, to: t0 + 4.1).count == 1)
        _ = state.reduce(.client([canaryEvent(seq: 1, at: t0 + 4.11)], app: 0))
        _ = tick(&state, to: t0 + 7.2)
        #expect(logTexts(state).contains("node \(b) missed canary 1 (published via \(a)) while reconnecting"))
        #expect(state.nodes?.audit.tallies[b]?.lost == 0 && state.nodes?.audit.tallies[b]?.away == 1)
        #expect(state.log.entries.last { $0.dataText?.contains("missed") == true }?.kind == .info)
    }

    @Test func aFailedPublishIsSaidAndExpectedNowhere() {
        var state = twoNodes()
        _ = tick(&state, to: t0 + 2)
        _ = state.reduce(.nodes(.canaryFailed(app: 0, seq: 1, message: "connection refused")))
        _ = tick(&state, to: t0 + 6)
        #expect(logTexts(state).contains("canary 1 not published via \(a): connection refused"))
        #expect(!logTexts(state).contains { $0.contains("missed") })
    }

    /// The publish through A failed (A dropped the connection after it took the event), and the event arrives
    /// after all, once later canaries are settled: said as such, not as a canary received twice.
    @Test func aFailedPublishThatLandsAfterAllIsNoDuplicate() {
        var state = twoNodes()
        _ = tick(&state, to: t0 + 2)
        _ = state.reduce(.nodes(.canaryFailed(app: 0, seq: 1, message: "connection reset by peer")))
        _ = tick(&state, to: t0 + 7)
        for app in [0, 1] { _ = state.reduce(.client([canaryEvent(seq: 2, at: t0 + 7.01, via: b)], app: app)) }
        _ = tick(&state, to: t0 + 11.5)
        _ = state.reduce(.client([canaryEvent(seq: 1, at: t0 + 11.6, via: a)], app: 1))
        #expect(
            logTexts(state).contains("node \(b): canary 1 arrived from its failed publish via \(a)"),
            "\(logTexts(state))")
        #expect(!logTexts(state).contains { $0.contains("twice") })
        #expect(state.nodes?.audit.ok == true && !nodeRows(state, b).contains("twice"))
    }

    @Test func aMemberOnOneNodeOnlyShowsAsASplitOnTheSecondComparison() {
        var state = twoNodes()
        _ = state.reduce(
            .client([.memberAdded(channel: "presence-room", member: PresenceMember(userID: "alice"))], app: 0))
        _ = tick(&state, to: t0 + 5)  // first comparison: a suspect
        #expect(state.nodes?.splits.isEmpty == true)
        _ = tick(&state, to: t0 + 10)  // second: confirmed
        #expect(state.nodes?.splits["presence-room"] == [RosterSplit(userID: "alice", on: [a])])
        #expect(logTexts(state).contains("presence-room: alice: on node \(a) only"))
        let screen = frame(state)
        #expect(screen.contains("│  presence-room:") && screen.contains("│    alice: on node \(a) only"), "\(screen)")
        // The member reaches the other node: the split goes.
        _ = state.reduce(
            .client([.memberAdded(channel: "presence-room", member: PresenceMember(userID: "alice"))], app: 1))
        _ = tick(&state, to: t0 + 15)
        #expect(state.nodes?.splits.isEmpty == true)
    }

    @Test func churnAcrossJoinedNodesRaisesNoFalseAlarm() {
        var state = twoNodes(interval: 1)
        var t = t0
        // Members join and leave several times a second; each event reaches node B a moment after node A, so
        // many comparisons catch the nodes mid-way.
        for step in 0..<400 {
            let user = "u\(step % 7)"
            let joined = (step / 7) % 2 == 0
            let change: ClientEvent =
                joined
                ? .memberAdded(channel: "presence-room", member: PresenceMember(userID: user))
                : .memberRemoved(channel: "presence-room", member: PresenceMember(userID: user))
            _ = state.reduce(.client([change], app: 0))
            t += 0.1
            _ = tick(&state, to: t)
            _ = state.reduce(.client([change], app: 1))
            t += 0.05
            _ = tick(&state, to: t)
            #expect(state.nodes?.splits.isEmpty == true, "step \(step): \(state.nodes?.splits ?? [:])")
        }
        #expect(!logTexts(state).contains { $0.contains("only") })
    }

    @Test func eachNodesHTTPAPIIsComparedWithItsConnectionOnTwoAnswers() {
        var state = twoNodes()
        _ = state.reduce(
            .client([.memberAdded(channel: "presence-room", member: PresenceMember(userID: "alice"))], app: 1))
        func ask(_ t: Double) -> [NodeRequest] {
            requests(&state, to: t).filter { if case .presenceUsers = $0 { true } else { false } }
        }
        #expect(
            ask(t0 + 5) == [
                .presenceUsers(app: 0, channel: "presence-room"), .presenceUsers(app: 1, channel: "presence-room"),
            ])
        // Node B's API lacks alice, whom its connection holds (no member_removed ever comes); node A's agrees.
        _ = state.reduce(.nodes(.presenceUsers(app: 0, channel: "presence-room", userIDs: ["me"], error: nil)))
        _ = state.reduce(.nodes(.presenceUsers(app: 1, channel: "presence-room", userIDs: ["me"], error: nil)))
        #expect(state.nodes?.apiDifferences.isEmpty == true)  // once is a suspect
        _ = ask(t0 + 10)
        _ = state.reduce(.nodes(.presenceUsers(app: 0, channel: "presence-room", userIDs: ["me"], error: nil)))
        _ = state.reduce(.nodes(.presenceUsers(app: 1, channel: "presence-room", userIDs: ["me"], error: nil)))
        #expect(state.nodes?.apiDifferences["presence-room"] == ["alice: not in node \(b)'s API"])
        #expect(logTexts(state).contains("presence-room: alice: not in node \(b)'s API"))
        #expect(frame(state).contains("│    alice: not in node \(b)'s API"))
    }

    @Test func aMemberWhoJoinsWhileTheAPIIsAskedIsNoDifference() {
        var state = twoNodes()
        _ = tick(&state, to: t0 + 5)
        // bob joins node A's connection after the question and before the answer, which does not have him yet.
        _ = state.reduce(
            .client([.memberAdded(channel: "presence-room", member: PresenceMember(userID: "bob"))], app: 0))
        _ = state.reduce(.nodes(.presenceUsers(app: 0, channel: "presence-room", userIDs: ["me"], error: nil)))
        _ = tick(&state, to: t0 + 10)
        _ = state.reduce(.nodes(.presenceUsers(app: 0, channel: "presence-room", userIDs: ["me", "bob"], error: nil)))
        #expect(state.nodes?.apiDifferences.isEmpty == true)
    }
}
