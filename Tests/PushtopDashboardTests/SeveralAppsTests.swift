import PusherProtocol
import PushtopDashboardFakes
import Testing

@testable import PushtopDashboard

/// Several apps at once through `reduce` and the views: channels grouped under their app, the log marking
/// each entry's app, keys acting on the selected app, and recordings keeping the grouping.
struct SeveralAppsTests {
    /// Two apps, staging and production, each connected with its own channels.
    func twoApps(hasAPI: Bool = false) -> DashboardState {
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0, configuration: .init(hasAPI: hasAPI))
        state.setApps([
            AppSetup(label: "staging", endpoint: "ws-eu.pusher.com:443 TLS", hasAPI: hasAPI),
            AppSetup(label: "production", endpoint: "ws-us2.pusher.com:443 TLS", hasAPI: hasAPI),
        ])
        _ = state.reduce(
            .client(
                [
                    .state(StateChange(previous: .connecting, current: .connected, socketID: "111.1")),
                    .subscribed(channel: "orders", presence: nil),
                ], app: 0))
        _ = state.reduce(
            .client(
                [
                    .state(StateChange(previous: .connecting, current: .connected, socketID: "222.2")),
                    .subscribed(channel: "orders", presence: nil),
                    .subscribed(
                        channel: "presence-ops",
                        presence: PresenceSnapshot(me: "dev", members: [PresenceMember(userID: "dev")])),
                ], app: 1))
        return state
    }

    @Test func eachAppKeepsItsConnectionAndItsChannelsUnderItsHeading() {
        var state = twoApps()
        #expect(state.apps.map(\.connection.socketID) == ["111.1", "222.2"])
        #expect(state.channels.map { "\($0.app):\($0.name)" } == ["0:orders", "1:orders", "1:presence-ops"])
        // An event on production's "orders" counts there only.
        _ = state.reduce(.client([event("orders", "shipped", "{}")], app: 1))
        #expect(state.channels.map(\.events) == [0, 1, 0])
        // The same channel name on another app is not "already subscribed".
        state.press(.char("s"))
        state.type("orders")
        #expect(state.prompt?.error == "already subscribed to orders")
        state.press(.escape)
        let screen = frame(state)
        let lines = screen.split(separator: "\n").map(String.init)
        let staging = lines.firstIndex { $0.contains("▸ staging  ● connected  1 channel") }
        let production = lines.firstIndex { $0.contains("production  ● connected  2 channels") }
        #expect(staging != nil && production != nil, "\(screen)")
        if let staging, let production {
            #expect(staging < production)
            #expect(lines[(staging + 1)...].prefix(1).first?.contains("orders") == true)
            #expect(
                lines[(production + 1)...].prefix(2).allSatisfy { $0.contains("orders") || $0.contains("presence-ops") }
            )
        }
        // The connection pane: one row per app, the selected one marked, then its details.
        #expect(screen.contains("1 Connections"))
        #expect(lines.contains { $0.contains("▸staging") && $0.contains("● connected") && $0.contains("111.1") })
        #expect(lines.contains { $0.contains(" production") && $0.contains("222.2") })
        #expect(screen.contains("staging 1/2"))
    }

    @Test func theHintBarNamesTheAppKeyOnlyWhenSeveralAreOpen() {
        let footer = { (state: DashboardState) in frame(state).split(separator: "\n").map(String.init).last ?? "" }
        #expect(footer(twoApps()).contains("A  app"), "\(footer(twoApps()))")
        let one = DashboardState(size: Size(rows: 42, columns: 140), now: t0, configuration: .init())
        #expect(!footer(one).contains("A  app"), "\(footer(one))")
    }

    @Test func theLogMarksEachEntrysAppOnlyWhenSeveralAreOpen() {
        var state = twoApps()
        _ = state.reduce(.client([event("orders", "from-staging", "{}")], app: 0))
        _ = state.reduce(.client([event("orders", "from-production", "{}")], app: 1))
        let lines = frame(state).split(separator: "\n")
        #expect(lines.contains { $0.contains("staging") && $0.contains("from-staging") })
        #expect(lines.contains { $0.contains("production") && $0.contains("from-production") })
        #expect(state.log.entries.last?.app == 1)
        // a:LABEL keeps one app's entries.
        state.press(.char("/"))
        state.type("a:prod")
        state.press(.enter)
        let filtered = frame(state).split(separator: "\n")
        #expect(filtered.contains { $0.contains("from-production") })
        #expect(!filtered.contains { $0.contains("from-staging") })
        #expect(state.log.visibleCount == state.log.entries.filter { $0.app == 1 }.count)
        _ = state.reduce(.client([event("orders", "later-staging", "{}")], app: 0))
        _ = state.reduce(.client([event("orders", "later-production", "{}")], app: 1))
        #expect(state.log.entry(seq: state.log.visibleSeq(at: state.log.visibleCount - 1))?.event == "later-production")
        // One app: no app column.
        var single = demoState()
        _ = single.reduce(.client([event("market-data", "tick", "{}")]))
        #expect(!single.isMultiApp)
        #expect(frame(single).split(separator: "\n").contains { $0.contains("market-data") && $0.contains("tick") })
    }

    @Test func keysActOnTheSelectedAppAndAPicksTheNext() {
        var state = twoApps()
        #expect(state.selectedApp == 0)
        #expect(state.press(.char("c")) == [.disconnect])
        // A selects production; the channel selection moves to its first channel.
        state.press(.char("A"))
        #expect(state.selectedApp == 1)
        #expect(state.currentChannel?.name == "orders" && state.currentChannel?.app == 1)
        #expect(state.status?.text == "app: production (keys act on it)")
        // Subscribing adds the channel under production.
        state.press(.char("s"))
        state.type("news")
        #expect(state.press(.enter) == [.subscribe("news")])
        #expect(state.channels.map { "\($0.app):\($0.name)" } == ["0:orders", "1:orders", "1:presence-ops", "1:news"])
        #expect(state.currentChannel?.name == "news")
        // The members pane shows production's presence channel.
        #expect(state.memberChannel == "presence-ops")
        // Moving the channel selection up into staging's channels selects staging.
        state.press(.char("2"))
        state.press(.char("g"))
        #expect(state.selectedApp == 0)
        #expect(state.memberChannel == nil)
        // Unsubscribing stays within the app.
        state.press(.char("A"))
        state.press(.char("G"))
        #expect(state.press(.char("u")) == [.unsubscribe("news")])
        #expect(state.selectedApp == 1 && state.currentChannel?.app == 1)
        // A wraps around.
        state.press(.char("A"))
        #expect(state.selectedApp == 0)
        // A click on an app's row in the connection pane (or its heading in the channel pane) selects it.
        _ = state.reduce(.mouse(.click(row: 3, column: 5)))
        #expect(state.selectedApp == 1)
        _ = state.reduce(.mouse(.click(row: 3, column: 60)))
        #expect(state.selectedApp == 0)
        // The saved log names each entry's app.
        let lines = state.logJSONLines()
        #expect(lines.contains { $0.contains(#""app":"production""#) && $0.contains("presence-ops") })
        #expect(demoState().logJSONLines().allSatisfy { !$0.contains(#""app""#) })
    }

    @Test func debuggerViewsShowTheSelectedAppsData() {
        var state = twoApps(hasAPI: true)
        _ = state.reduce(
            .frames(
                [WireFrame(time: t0, direction: .inbound, kind: .text, size: 10, text: #"{"event":"staging-frame"}"#)],
                droppedUpstream: 0, app: 0))
        _ = state.reduce(
            .frames(
                [
                    WireFrame(
                        time: t0, direction: .inbound, kind: .text, size: 10, text: #"{"event":"production-frame"}"#)
                ],
                droppedUpstream: 0, app: 1))
        state.press(.char("w"))
        var screen = frame(state)
        #expect(screen.contains("Wire inspector · staging"))
        #expect(screen.contains("staging-frame") && !screen.contains("production-frame"))
        state.press(.char("A"))
        screen = frame(state)
        #expect(screen.contains("Wire inspector · production"))
        #expect(screen.contains("production-frame") && !screen.contains("staging-frame"))
        // The channel browser asks the selected app's API; an answer goes to the app that asked.
        state.press(.char("w"))
        #expect(state.press(.char("b")) == [.fetchOccupiedChannels])
        _ = state.reduce(
            .occupiedChannels([OccupiedChannel(name: "only-on-production", subscriptionCount: 3)], error: nil, app: 1))
        _ = state.reduce(
            .occupiedChannels([OccupiedChannel(name: "only-on-staging", subscriptionCount: 1)], error: nil, app: 0))
        screen = frame(state)
        #expect(screen.contains("Channel browser · production"))
        #expect(screen.contains("only-on-production") && !screen.contains("only-on-staging"))
    }

    @Test(arguments: [(60, 16), (80, 24), (61, 17), (200, 60)])
    func severalAppsDrawAtAnySize(columns: Int, rows: Int) {
        var state = twoApps()
        for i in 0..<30 { _ = state.reduce(.client([.subscribed(channel: "extra-\(i)", presence: nil)], app: i % 2)) }
        _ = state.reduce(.resize(Size(rows: rows, columns: columns)))
        state.press(.char("A"))
        state.press(.char("2"))
        state.press(.char("G"))
        let screen = frame(state)
        #expect(screen.split(separator: "\n").count == rows)
        // The selected channel (production's last) is on screen, below production's heading when it fits.
        #expect(state.currentChannel?.name == "extra-29" && screen.contains("extra-29"))
        state.press(.char("g"))
        #expect(state.selectedApp == 0 && frame(state).contains("staging"))
    }

    @Test func aRecordingOfSeveralAppsReplaysWithTheSameGrouping() {
        var header = RecordingHeader(started: t0, endpoint: "a:1 TLS", channels: ["orders"], source: "test")
        header.apps = [.init(label: "staging", endpoint: "a:1 TLS"), .init(label: "production", endpoint: "b:2 TLS")]
        let items: [RecordingItem] = [
            .header(header),
            .client(time: t0, event: .state(StateChange(previous: .connecting, current: .connected, socketID: "1.1"))),
            .tagged(
                .client(
                    time: t0, event: .state(StateChange(previous: .connecting, current: .connected, socketID: "2.2"))),
                app: 1),
            .client(time: t0 + 1, event: .subscribed(channel: "orders", presence: nil)),
            .tagged(.client(time: t0 + 1, event: .subscribed(channel: "payments", presence: nil)), app: 1),
            .tagged(.client(time: t0 + 2, event: event("payments", "paid", "{}")), app: 1),
            .tagged(.frame(WireFrame(time: t0 + 2, direction: .inbound, kind: .text, size: 3, text: "{}")), app: 1),
        ]
        let text = items.map(RecordingCodec.encode).joined(separator: "\n") + "\n"
        #expect(text.contains(#""app":1"#))
        let (read, damage) = RecordingCodec.read(text)
        #expect(damage == nil)
        #expect(read == items)
        var player = ReplayPlayer(file: "r", text: text)
        var state = player.initialState(size: Size(rows: 42, columns: 140), configuration: .init())
        player.advance(wallSeconds: 5, into: &state)
        #expect(state.apps.map(\.label) == ["staging", "production"])
        #expect(state.channels.map { "\($0.app):\($0.name)" } == ["0:orders", "1:payments"])
        #expect(state.apps[1].wire.log.count == 1 && state.apps[0].wire.log.count == 0)
        #expect(frame(state).split(separator: "\n").contains { $0.contains("production") && $0.contains("paid") })
        // A recording without "app" fields (one app, or an older pushtop's) replays as one app.
        let old = [
            RecordingCodec.encode(.header(RecordingHeader(started: t0, endpoint: "e", channels: [], source: "t"))),
            #"{"type":"client","t":1700000001,"event":{"kind":"subscribed","channel":"chat"}}"#,
        ].joined(separator: "\n")
        var oldPlayer = ReplayPlayer(file: "o", text: old)
        var oldState = oldPlayer.initialState(size: Size(rows: 42, columns: 140), configuration: .init())
        oldPlayer.advance(wallSeconds: 5, into: &oldState)
        #expect(oldPlayer.damage == nil)
        #expect(!oldState.isMultiApp && oldState.channels.map(\.name) == ["chat"])
    }

    @Test func theChannelBrowserAndPresenceCheckAnswersAreRecordedAndReplayed() throws {
        let answers: [UIEvent] = [
            .occupiedChannels(
                [
                    OccupiedChannel(name: "presence-lobby", subscriptionCount: 2, userCount: 2),
                    OccupiedChannel(name: "news", subscriptionCount: 9),
                ], error: nil),
            .presenceUsers(channel: "presence-lobby", userIDs: ["alice", "ghost"], error: nil),
            .occupiedChannels(nil, error: "HTTP 500", app: 1),
        ]
        let items = answers.compactMap { RecordedAnswer.item($0, time: t0 + 1) }
        #expect(items.count == 3)
        let lines = items.map(RecordingCodec.encode)
        #expect(lines[0].contains(#""type":"api""#) && lines[0].contains(#""query":"channels""#))
        #expect(lines[1].contains(#""query":"users/presence-lobby""#))
        #expect(lines[2].contains(#""app":1"#) && lines[2].contains("HTTP 500"))
        let header = RecordingCodec.encode(
            .header(RecordingHeader(started: t0, endpoint: "e", channels: [], source: "t")))
        let opening = ScriptedFeed.demoOpening.map { RecordingCodec.encode(.client(time: t0, event: $0)) }
        var player = ReplayPlayer(file: "r", text: ([header] + opening + lines.prefix(2)).joined(separator: "\n"))
        #expect(player.damage == nil)
        var state = player.initialState(size: Size(rows: 42, columns: 140), configuration: .init())
        player.advance(wallSeconds: 5, into: &state)
        #expect(state.browser.rows.map(\.name).sorted() == ["news", "presence-lobby"])
        #expect(state.presenceCheck.results["presence-lobby"] != nil)
        state.press(.char("b"))
        let screen = frame(state)
        #expect(screen.contains("news") && screen.contains("presence-lobby"))
    }
}
