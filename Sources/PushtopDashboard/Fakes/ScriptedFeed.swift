import PusherProtocol

/// A feed of client events without a network: a replay of scripted steps, or a synthetic demo (connected
/// state, a few channels, a presence roster with joins and leaves, a steady event stream).
///
/// `events` is what ``runDashboard(events:backend:options:)`` takes; ``backend`` answers the dashboard's
/// commands into the same stream.
public final class ScriptedFeed: Sendable {
    /// One step of a script.
    public enum Step: Sendable {
        case emit([ClientEvent])
        case wait(seconds: Double)
    }

    public let events: AsyncStream<[ClientEvent]>
    private let continuation: AsyncStream<[ClientEvent]>.Continuation
    /// The frames the scripted events "came in" (the demo's), as a frame tap would deliver them.
    public let frames: AsyncStream<FrameBatch>
    private let frameContinuation: AsyncStream<FrameBatch>.Continuation
    public let backend: ScriptedBackend
    private let task: Locked<Task<Void, Never>?> = Locked(nil)

    public init(connectionDescription: String = "127.0.0.1:0 (scripted, no TLS)") {
        let (stream, continuation) = AsyncStream.makeStream(of: [ClientEvent].self, bufferingPolicy: .bufferingNewest(10_000))
        events = stream
        self.continuation = continuation
        (frames, frameContinuation) = AsyncStream.makeStream(of: FrameBatch.self, bufferingPolicy: .bufferingNewest(10_000))
        backend = ScriptedBackend(connectionDescription: connectionDescription) { continuation.yield($0) }
    }

    /// Emits a batch now.
    public func emit(_ batch: [ClientEvent]) {
        continuation.yield(batch)
    }

    /// Replays steps in order (the stream stays open afterwards).
    public func replay(_ steps: [Step]) {
        let continuation = self.continuation
        start {
            for step in steps {
                switch step {
                case .emit(let batch): continuation.yield(batch)
                case .wait(let seconds): try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                }
                if Task.isCancelled { return }
            }
        }
    }

    /// Starts the synthetic demo: `eventsPerSecond` events spread over the demo channels, in batches every
    /// 50 ms, a member joining or leaving `presence-lobby` every few seconds, and a pong every 5 s.
    public func startDemo(eventsPerSecond: Int = 20) {
        let continuation = self.continuation
        let frameContinuation = self.frameContinuation
        start {
            continuation.yield(ScriptedFeed.demoOpening)
            frameContinuation.yield(FrameBatch(frames: ScriptedFeed.openingFrames(now: ScriptedFeed.now()), droppedSoFar: 0))
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
                    let now = ScriptedFeed.now()
                    let event = ScriptedFeed.withFrame(generator.nextEvent(now: now))
                    if case .event(let e) = event, let raw = e.rawFrame {
                        frames.append(WireFrame(time: now, direction: .inbound, kind: .text, size: raw.utf8.count, text: raw))
                    }
                    batch.append(event)
                    due -= 1
                }
                if tick % 60 == 0 { batch.append(generator.nextPresenceChange()) }
                if tick % 100 == 0 {
                    let now = ScriptedFeed.now()
                    let ping = #"{"event":"pusher:ping","data":{}}"#, pong = #"{"event":"pusher:pong","data":{}}"#
                    frames.append(WireFrame(time: now, direction: .outbound, kind: .text, size: ping.utf8.count, text: ping))
                    frames.append(WireFrame(time: now, direction: .inbound, kind: .text, size: pong.utf8.count, text: pong))
                    batch.append(.pong(roundTrip: 0.004 + Double(tick % 7) / 1000))
                }
                if !batch.isEmpty { continuation.yield(batch) }
                if !frames.isEmpty { frameContinuation.yield(FrameBatch(frames: frames, droppedSoFar: 0)) }
            }
        }
    }

    /// Stops the script and ends the stream.
    public func finish() {
        task.withLock { $0?.cancel() }
        continuation.finish()
        frameContinuation.finish()
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
        .subscribed(channel: "presence-lobby", presence: PresenceSnapshot(me: "you", members: [
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
        var out = [frame(.inbound, #"{"event":"pusher:connection_established","data":"{"socket_id":"4242.1717","activity_timeout":120}"}"#)]
        for channel in ["market-data", "private-orders", "cache-config", "presence-lobby"] {
            let auth = channel.hasPrefix("private-") || channel.hasPrefix("presence-") ? #","auth":"preview-key:0badc0de""# : ""
            out.append(frame(.outbound, #"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"\#(auth)}}"#))
            out.append(frame(.inbound, #"{"event":"pusher_internal:subscription_succeeded","channel":"\#(channel)","data":"{}"}"#))
        }
        return out
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deterministic synthetic events for the demo feed.
struct DemoGenerator {
    private var n = 0
    private var guests = 0
    private var present: [String] = []
    private static let symbols = ["BTC", "ETH", "SOL", "ADA", "東証", "DOGE"]

    mutating func nextEvent(now: Double) -> ClientEvent {
        n += 1
        switch n % 10 {
        case 0, 1, 2, 3, 4, 5:
            let symbol = Self.symbols[n % Self.symbols.count]
            let price = 100 + (n * 37) % 900
            return .event(ChannelEvent(channel: "market-data", name: "price-update",
                dataText: #"{"symbol":"\#(symbol)","price":\#(price).\#(n % 100),"seq":\#(n)}"#, receivedAt: now))
        case 6, 7:
            return .event(ChannelEvent(channel: "private-orders", name: "order-filled",
                dataText: #"{"id":"ord-\#(n)","qty":\#(n % 17 + 1),"side":"\#(n % 2 == 0 ? "buy" : "sell")"}"#,
                receivedAt: now))
        case 8:
            return .event(ChannelEvent(channel: "presence-lobby", name: "client-typing",
                dataText: #"{"text":"hello 👋 #\#(n)"}"#, userID: n % 4 == 0 ? "alice" : "bob", receivedAt: now))
        default:
            return .event(ChannelEvent(channel: "cache-config", name: "config-changed",
                dataText: #"{"flag":"beta-\#(n % 5)","on":\#(n % 3 == 0)}"#, receivedAt: now))
        }
    }

    mutating func nextPresenceChange() -> ClientEvent {
        if present.count >= 3 || (!present.isEmpty && guests % 3 == 2) {
            let id = present.removeFirst()
            guests += 1
            return .memberRemoved(channel: "presence-lobby", member: PresenceMember(userID: id))
        }
        guests += 1
        let id = "guest-\(guests)"
        present.append(id)
        return .memberAdded(channel: "presence-lobby", member: PresenceMember(userID: id, userInfo: ["name": .string("Guest \(guests)")]))
    }
}
