import PusherProtocol
import PushtopDashboard
import Synchronization

/// A feed of client events without a network: a replay of scripted steps, or a synthetic demo (connected
/// state, a few channels, a presence roster with joins and leaves, a steady event stream).
///
/// ``feed`` is what ``runDashboard(feed:backend:options:)`` takes; ``backend`` answers the dashboard's commands
/// into the same feed.
public final class ScriptedFeed: Sendable {
    /// One step of a script.
    public enum Step: Sendable {
        case emit([ClientEvent])
        case wait(seconds: Double)
    }

    /// The scripted events, and the frames they "came in" (the demo's), as a client would post them.
    public let feed = DashboardFeed()
    public let backend: ScriptedBackend
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    public init(connectionDescription: String = "127.0.0.1:0 (scripted, no TLS)") {
        let feed = self.feed
        backend = ScriptedBackend(connectionDescription: connectionDescription) { feed.post($0) }
    }

    /// Emits a batch now.
    public func emit(_ batch: [ClientEvent]) {
        feed.post(batch)
    }

    /// Replays steps in order.
    public func replay(_ steps: [Step]) {
        let feed = self.feed
        start {
            for step in steps {
                switch step {
                case .emit(let batch): feed.post(batch)
                case .wait(let seconds): try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                }
                if Task.isCancelled { return }
            }
        }
    }

    /// Starts the synthetic demo: `eventsPerSecond` events spread over the demo channels, in batches every
    /// 50 ms, a member joining or leaving `presence-lobby` every few seconds, and a pong every 5 s.
    public func startDemo(eventsPerSecond: Int = 20) {
        let feed = self.feed
        start {
            feed.post(ScriptedFeed.demoOpening)
            feed.post(frames: ScriptedFeed.openingFrames(now: DashboardClock.now()))
            var generator = DemoGenerator()
            var tick = 0
            var due = 0.0
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 50_000_000)
                tick += 1
                due += Double(eventsPerSecond) / 20
                var batch: [ClientEvent] = []
                var frames: [WireFrame] = []
                while due >= 1 {
                    let now = DashboardClock.now()
                    let event = ScriptedFeed.withFrame(generator.nextEvent(now: now))
                    if case .event(let e) = event, let raw = e.rawFrame {
                        frames.append(
                            WireFrame(time: now, direction: .inbound, kind: .text, size: raw.utf8.count, text: raw))
                    }
                    batch.append(event)
                    due -= 1
                }
                if tick % 60 == 0 { batch.append(generator.nextPresenceChange()) }
                if tick % 100 == 0 {
                    let now = DashboardClock.now()
                    let ping = #"{"event":"pusher:ping","data":{}}"#, pong = #"{"event":"pusher:pong","data":{}}"#
                    frames.append(
                        WireFrame(time: now, direction: .outbound, kind: .text, size: ping.utf8.count, text: ping))
                    frames.append(
                        WireFrame(time: now, direction: .inbound, kind: .text, size: pong.utf8.count, text: pong))
                    batch.append(.pong(roundTrip: 0.004 + Double(tick % 7) / 1000))
                }
                if !batch.isEmpty { feed.post(batch) }
                if !frames.isEmpty { feed.post(frames: frames) }
            }
        }
    }

    /// Stops the script.
    public func finish() {
        task.withLock { $0?.cancel() }
    }

    private func start(_ body: @escaping @Sendable () async -> Void) {
        let t = Task.detached(operation: body)
        task.withLock { old in
            old?.cancel()
            old = t
        }
    }

    /// The demo's first batch: connected, four channels, a presence roster.
    public static let demoOpening: [ClientEvent] = [
        .state(StateChange(previous: .initialized, current: .connecting)),
        .state(StateChange(previous: .connecting, current: .connected, socketID: "4242.1717")),
        .subscribing(channel: "market-data"),
        .subscribed(channel: "market-data", presence: nil),
        .subscribing(channel: "private-orders"),
        .subscribed(channel: "private-orders", presence: nil),
        .subscribing(channel: "cache-config"),
        .subscribed(channel: "cache-config", presence: nil),
        .subscribing(channel: "presence-lobby"),
        .subscribed(
            channel: "presence-lobby",
            presence: PresenceSnapshot(
                me: "you",
                members: [
                    PresenceMember(userID: "you", userInfo: ["name": "You"]),
                    PresenceMember(userID: "alice", userInfo: ["name": "Alice", "role": "admin"]),
                    PresenceMember(userID: "bob", userInfo: ["name": "Bob"]),
                    PresenceMember(userID: "li", userInfo: ["name": "李小龙"]),
                    PresenceMember(userID: "zoe", userInfo: ["name": "Zoe\u{0308}", "mood": "🚀"]),
                ])),
        .subscriptionCount(channel: "presence-lobby", count: 5),
        .pong(roundTrip: 0.006),
    ]

    /// The event with the frame it would have come in (`rawFrame`), as a client with a frame tap delivers it.
    public static func withFrame(_ event: ClientEvent) -> ClientEvent {
        guard case .event(var e) = event else { return event }
        var o: [String: JSONValue] = ["event": .string(e.name), "channel": .string(e.channel)]
        if let d = e.dataText { o["data"] = .string(d) }
        if let u = e.userID { o["user_id"] = .string(u) }
        e.rawFrame = JSONValue.object(o).jsonString
        return .event(e)
    }

    /// The frames of the demo's opening: the handshake and the subscriptions.
    static func openingFrames(now: Double) -> [WireFrame] {
        func frame(_ dir: WireFrame.Direction, _ text: String) -> WireFrame {
            WireFrame(time: now, direction: dir, kind: .text, size: text.utf8.count, text: text)
        }
        var out = [
            frame(
                .inbound,
                #"{"event":"pusher:connection_established","data":"{"socket_id":"4242.1717","activity_timeout":120}"}"#)
        ]
        for channel in ["market-data", "private-orders", "cache-config", "presence-lobby"] {
            let auth =
                channel.hasPrefix("private-") || channel.hasPrefix("presence-")
                ? #","auth":"preview-key:0badc0de""# : ""
            out.append(frame(.outbound, #"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"\#(auth)}}"#))
            out.append(
                frame(
                    .inbound, #"{"event":"pusher_internal:subscription_succeeded","channel":"\#(channel)","data":"{}"}"#
                ))
        }
        return out
    }
}
