import PusherProtocol
import PushtopDashboardFakes
import Testing

@testable import PushtopDashboard

/// The debugger views through `reduce` and the grid canvas: wire inspector, event detail frames, auth
/// inspector, recording and replay, and the counts' plurals.
struct DebuggerViewTests {
    func text(_ t: Double, _ dir: WireFrame.Direction, _ s: String) -> WireFrame {
        WireFrame(time: t, direction: dir, kind: .text, size: s.utf8.count, text: s)
    }

    @Test func wireInspectorListsFramesBothWaysAndHidesPingsWithOneKey() {
        var state = demoState()
        _ = state.reduce(
            .frames(
                [
                    text(t0, .outbound, #"{"event":"pusher:subscribe","data":{"channel":"chat"}}"#),
                    text(t0 + 1, .inbound, #"{"event":"message","channel":"chat","data":"{\"text\":\"hi\"}"}"#),
                    text(t0 + 2, .outbound, #"{"event":"pusher:ping","data":{}}"#),
                    WireFrame(time: t0 + 3, direction: .inbound, kind: .pong, size: 0, text: ""),
                ], droppedUpstream: 0))
        #expect(!frame(state).contains("Wire inspector"))
        state.press(.char("w"))
        var screen = frame(state)
        #expect(screen.contains("Wire inspector"))
        #expect(screen.contains("↑ out") && screen.contains("↓ in"))
        #expect(screen.contains("pusher:subscribe") && screen.contains(#""text\":\"hi\""#))
        #expect(screen.contains("pusher:ping"))
        #expect(screen.contains("4 frames"))
        state.press(.char("p"))
        screen = frame(state)
        #expect(!screen.contains("pusher:ping"))
        #expect(screen.contains("pings hidden"))
        #expect(screen.contains("pusher:subscribe"))
        // The filter works like the log's.
        state.press(.char("/"))
        state.type("e:message")
        screen = frame(state)
        #expect(screen.contains("(1 match)"))
        #expect(!screen.contains("pusher:subscribe"))
        state.press(.enter, .escape)
        #expect(frame(state).contains("pusher:subscribe"))
        state.press(.escape)
        #expect(state.view == .panes)
        #expect(frame(state).contains("4 Event log"))
    }

    @Test func frameDetailIndentsJSONAndShowsTheDecryptedPayloadBesideTheCiphertext() {
        var state = demoState()
        let raw =
            #"{"event":"secret","channel":"private-encrypted-vault","data":"{\"nonce\":\"bm9uY2U=\",\"ciphertext\":\"Y2lwaGVy\"}"}"#
        _ = state.reduce(
            .client([
                .event(
                    ChannelEvent(
                        channel: "private-encrypted-vault", name: "secret",
                        dataText: #"{"code":"1234"}"#, receivedAt: t0, rawFrame: raw))
            ]))
        _ = state.reduce(.frames([text(t0, .inbound, raw)], droppedUpstream: 0))
        state.press(.char("w"), .enter)
        let screen = frame(state)
        #expect(screen.contains("Frame #0"))
        #expect(screen.contains(#""ciphertext": "Y2lwaGVy""#))
        #expect(screen.contains("decrypted"))
        #expect(screen.contains(#""code": "1234""#))
        // Side by side: the encrypted data (its keys in the order received) and the plaintext on the same rows.
        let row = screen.split(separator: "\n").first { $0.contains(#""nonce": "bm9uY2U=""#) }
        #expect(row?.contains(#""code": "1234""#) == true, "not side by side:\n\(screen)")
    }

    @Test func wireInspectorIsBoundedAndShowsWhatItDropped() {
        var state = DashboardState(
            size: Size(rows: 30, columns: 120), now: t0,
            configuration: .init(frameCapacity: 5))
        let frames = (0..<8).map { text(t0 + Double($0), .inbound, #"{"event":"e\#($0)","channel":"c","data":"{}"}"#) }
        _ = state.reduce(.frames(frames, droppedUpstream: 3))
        #expect(state.wire.log.count == 5)
        state.press(.char("w"))
        let screen = frame(state)
        #expect(screen.contains("dropped 6"))
        #expect(screen.contains("\"e7\"") && !screen.contains("\"e2\""))
    }

    @Test func eventDetailShowsTheExactFrameTheEventCameIn() {
        var state = demoState()
        let raw = #"{"channel":"chat","event":"message","data":"{\"text\":\"exact\"}","extra":1}"#
        _ = state.reduce(
            .client([
                .event(
                    ChannelEvent(
                        channel: "chat", name: "message", dataText: #"{"text":"exact"}"#,
                        receivedAt: t0, rawFrame: raw))
            ]))
        state.press(.char("4"), .enter)
        let screen = frame(state)
        #expect(screen.contains(#""extra":1"#))
        #expect(!screen.contains("rebuilt"))
        // Without a frame tap the frame is rebuilt, and the view says so.
        var plain = demoState()
        _ = plain.reduce(.client([event("chat", "message", #"{"a":1}"#)]))
        plain.press(.char("4"), .enter)
        #expect(frame(plain).contains("rebuilt from the event"))
    }

    @Test func authInspectorComparesSignaturesAndNamesTheWrongField() {
        let credentials = KnownCredentials(key: "key", secret: "secret")
        var state = DashboardState(
            size: Size(rows: 42, columns: 140), now: t0,
            configuration: .init(credentials: credentials))
        let good = ChannelAuthSignature.auth(key: "key", secret: "secret", socketID: "1.2", channel: "private-a")
        let stale = ChannelAuthSignature.auth(key: "key", secret: "secret", socketID: "1.1", channel: "private-b")
        let otherKey = ChannelAuthSignature.auth(key: "nope", secret: "secret", socketID: "1.2", channel: "private-c")
        let noData = ChannelAuthSignature.auth(key: "key", secret: "secret", socketID: "1.2", channel: "presence-d")
        func trace(_ channel: String, _ auth: String, data: String? = nil) -> ClientEvent {
            .authorization(
                AuthorizationTrace(
                    channel: channel, socketID: "1.2", authorizer: "https://app/auth",
                    startedAt: t0, duration: 0.05, status: 200, responseExcerpt: #"{"auth":"\#(auth)"}"#, auth: auth,
                    channelData: data))
        }
        _ = state.reduce(
            .client([
                .state(StateChange(previous: .connecting, current: .connected, socketID: "1.1")),
                .state(StateChange(previous: .connected, current: .connecting)),
                .state(StateChange(previous: .connecting, current: .connected, socketID: "1.2")),
                .subscribing(channel: "private-a"), trace("private-a", good),
                .subscribed(channel: "private-a", presence: nil),
                .subscribing(channel: "private-b"), trace("private-b", stale),
                .subscriptionError(channel: "private-b", status: nil, message: "Invalid signature"),
                .subscribing(channel: "private-c"), trace("private-c", otherKey),
                .subscribing(channel: "presence-d"), trace("presence-d", noData, data: #"{"user_id":"u"}"#),
            ]))
        // The subscription error points to the inspector.
        #expect(state.log.entries.contains { $0.dataText?.contains("auth inspector") == true })
        state.press(.char("2"), .char("g"), .char("a"))
        var screen = frame(state)
        #expect(screen.contains("Auth inspector · private-a"))
        #expect(screen.contains("1.2:private-a"))
        #expect(screen.contains("✓ signature matches"))
        #expect(screen.contains("HTTP status  200"))
        state.press(.right)
        #expect(frame(state).contains("wrong socket id: signed for 1.1, another connection"))
        state.press(.right)
        #expect(frame(state).contains("wrong key: signed with key nope"))
        state.press(.right)
        screen = frame(state)
        #expect(screen.contains("wrong channel_data"))
        #expect(screen.contains(#"1.2:presence-d:{"user_id":"u"}"#))
        state.press(.escape)
        #expect(state.view == .panes)
        // Without the secret the view says what it needs.
        var unknown = DashboardState(size: Size(rows: 42, columns: 140), now: t0)
        _ = unknown.reduce(
            .client([
                .subscribing(channel: "private-a"), trace("private-a", good),
                .subscribed(channel: "private-a", presence: nil),
            ]))
        unknown.press(.char("2"), .char("a"))
        #expect(frame(unknown).contains("needs the app secret"))
    }

    @Test func recordingLinesRoundTripWithoutSecrets() throws {
        let trace = AuthorizationTrace(
            channel: "private-x", socketID: "1.2", authorizer: "https://app/auth",
            startedAt: t0, duration: 0.1, status: 200,
            responseExcerpt: #"{"auth":"key:abcdef","shared_secret":"c2VjcmV0c2VjcmV0"}"#, auth: "key:abcdef",
            hasSharedSecret: true)
        let items: [RecordingItem] = [
            .header(RecordingHeader(started: t0, endpoint: "h:1 TLS", channels: ["private-x"], source: "test")),
            .client(time: t0, event: .state(StateChange(previous: .connecting, current: .connected, socketID: "1.2"))),
            .client(time: t0, event: .authorization(trace)),
            .client(
                time: t0 + 1,
                event: .subscribed(
                    channel: "presence-p",
                    presence: PresenceSnapshot(
                        me: "u",
                        members: [PresenceMember(userID: "u", userInfo: ["name": "U"])]))),
            .client(
                time: t0 + 2,
                event: .event(
                    ChannelEvent(
                        channel: "c", name: "e", dataText: "{}", userID: "u",
                        receivedAt: t0 + 2, rawFrame: #"{"event":"e"}"#))),
            .frame(
                text(
                    t0 + 3, .outbound,
                    #"{"event":"pusher:subscribe","data":{"channel":"private-x","auth":"key:abcdef"}}"#)),
            .frame(WireFrame(time: t0 + 4, direction: .inbound, kind: .close, size: 6, text: "bye", closeCode: 4201)),
            .framesDropped(time: t0 + 5, total: 7),
        ]
        let text = items.map(RecordingCodec.encode).joined(separator: "\n") + "\n"
        #expect(!text.contains("abcdef"))
        #expect(!text.contains("c2VjcmV0c2VjcmV0"))
        #expect(text.contains("key:<redacted>"))
        let (read, damage) = RecordingCodec.read(text)
        #expect(damage == nil)
        #expect(read.count == items.count)
        #expect(read[3] == items[3])
        #expect(read[4] == items[4])
        #expect(read[6] == items[6])
        guard case .client(_, .authorization(let back)) = read[2] else {
            Issue.record("no trace")
            return
        }
        #expect(back.auth == "key:<redacted>" && back.status == 200 && back.hasSharedSecret)
    }

    @Test func aDamagedRecordingReplaysUpToTheDamageAndSaysWhere() {
        let header = RecordingCodec.encode(
            .header(RecordingHeader(started: t0, endpoint: "e", channels: [], source: "t")))
        let ok = RecordingCodec.encode(.client(time: t0 + 1, event: .subscribed(channel: "chat", presence: nil)))
        let player = ReplayPlayer(
            file: "r.jsonl", text: [header, ok, ok, #"{"type":"client","t":1"#].joined(separator: "\n"))
        #expect(player.items.count == 2)
        #expect(player.damage?.line == 4)
        #expect(player.damage?.description.contains("truncated") == true)
        var state = player.initialState(size: Size(rows: 42, columns: 140), configuration: .init())
        var p = player
        p.advance(wallSeconds: 5, into: &state)
        let screen = frame(state)
        #expect(screen.contains("chat"))
        #expect(screen.contains("stopped at line 4"))
        let garbage = ReplayPlayer(file: "x", text: [header, ok, "not json", ok].joined(separator: "\n"))
        #expect(garbage.items.count == 1 && garbage.damage?.line == 3)
    }

    @Test func replayDrivesTheSameReduceAsLive() {
        // Live: events arrive at their times; the recording keeps them with those times.
        var live = DashboardState(size: Size(rows: 42, columns: 140), now: t0)
        var items: [RecordingItem] = [.header(RecordingHeader(started: t0, endpoint: "e", channels: [], source: "t"))]
        var now = t0
        var batches: [[ClientEvent]] = [ScriptedFeed.demoOpening]
        for i in 0..<40 {
            let channel = i % 2 == 0 ? "market-data" : "private-orders"
            let at: Double = t0 + 0.25 * Double(i + 1)
            batches.append([event(channel, "price-update", "{\"n\":\(i)}", at: at)])
        }
        for (i, batch) in batches.enumerated() {
            now = t0 + 0.25 * Double(i)
            _ = live.reduce(.tick(now: now))
            _ = live.reduce(.client(batch))
            let time = now
            items += batch.map { RecordingItem.client(time: time, event: $0) }
        }
        let text = items.map(RecordingCodec.encode).joined(separator: "\n") + "\n"
        var player = ReplayPlayer(file: "r", text: text)
        var replayed = player.initialState(size: live.size, configuration: .init())
        player.advance(wallSeconds: 20, into: &replayed)
        let panes = { (s: DashboardState) -> [String] in
            // Everything but the header line (the replay bar) and the connection pane's clock-driven rows.
            frame(s).split(separator: "\n").dropFirst().map { String($0.dropFirst(56)) }
        }
        #expect(panes(replayed) == panes(live))
        // Jumping back rebuilds the state from the start up to the target.
        #expect(player.perform(.jump(to: 1), into: &replayed))
        player.restart(into: &replayed)
        #expect(replayed.log.count < live.log.count)
        #expect(player.status.position == 1)
        player.advance(wallSeconds: 10, into: &replayed)
        #expect(panes(replayed) == panes(live))
        #expect(frame(replayed).contains("■ REPLAY"))
    }

    @Test func countsReadInTheSingular() {
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0)
        _ = state.reduce(.client([.subscribed(channel: "chat", presence: nil), event("chat", "hello", "{}")]))
        #expect(frame(state).contains(" 1 channel "))
        state.press(.char("/"))
        state.type("hello")
        #expect(frame(state).contains("(1 match)"))
        #expect(Format.counted(2, "match") == "2 matches" && Format.counted(1, "entry", plural: "entries") == "1 entry")
    }

    @Test func helpNamesTheDebuggerViewsAsUsersLookForThem() {
        var state = demoState()
        state.press(.char("?"))
        let screen = frame(state)
        for name in ["wire inspector", "record", "auth inspector", "replay (pushtop replay FILE)", "play / pause"] {
            #expect(screen.contains(name), "help lacks \(name)")
        }
    }
}

extension DebuggerViewTests {
    @Test func replayReachesTheEndWhenFramesAndEventsInterleave() {
        let items: [RecordingItem] = [
            .header(RecordingHeader(started: t0, endpoint: "e", channels: [], source: "t")),
            .frame(WireFrame(time: t0 + 2, direction: .inbound, kind: .text, size: 2, text: "{}")),
            .client(time: t0 + 1.5, event: .subscribed(channel: "late", presence: nil)),
        ]
        var player = ReplayPlayer(file: "r", text: items.map(RecordingCodec.encode).joined(separator: "\n"))
        var state = player.initialState(size: Size(rows: 42, columns: 140), configuration: .init())
        player.advance(wallSeconds: 10, into: &state)
        #expect(player.isFinished)
        #expect(state.channels.map(\.name) == ["late"])
        #expect(state.wire.log.count == 1)
    }
}
