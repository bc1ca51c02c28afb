/// Pusher's debounce of departures: `channel_vacated` and `member_removed` wait a grace period and are dropped, with
/// the `channel_occupied` or `member_added` that undoes them, when the channel fills again or the user comes back
/// within it ("if a user disconnects and then reconnects within 3 seconds, neither event will be delivered via
/// webhook"). A page reload then sends nothing.
///
/// A value: events and the time go in, the events to post come out; the dispatcher owns one and its timer.
struct WebhookGrace: Sendable {
    /// What a held event waits on.
    enum Key: Hashable, Sendable {
        case vacated(channel: String)
        case removed(channel: String, userID: String)
    }

    struct Held: Sendable {
        var event: WebhookEvent
        var due: ContinuousClock.Instant
        var serial: Int
    }

    /// Seconds a departure waits; 0 posts every event at once.
    let seconds: Double
    private(set) var held: [Key: Held] = [:]
    /// Held keys in the order they are due (a constant grace keeps arrival order).
    private var queue: [(key: Key, serial: Int)] = []
    private var serial = 0

    init(seconds: Double) {
        self.seconds = seconds
    }

    /// The events to post now for `event` arriving at `now`: itself, nothing (held, or cancelled with a held one).
    mutating func offer(_ event: WebhookEvent, now: ContinuousClock.Instant) -> [WebhookEvent] {
        guard seconds > 0 else { return [event] }
        switch event {
        case .channelVacated(let channel):
            hold(.vacated(channel: channel), event, now: now)
            return []
        case .memberRemoved(let channel, let userID):
            hold(.removed(channel: channel, userID: userID), event, now: now)
            return []
        case .channelOccupied(let channel):
            return held.removeValue(forKey: .vacated(channel: channel)) == nil ? [event] : []
        case .memberAdded(let channel, let userID):
            return held.removeValue(forKey: .removed(channel: channel, userID: userID)) == nil ? [event] : []
        case .clientEvent, .cacheMiss, .subscriptionCount:
            return [event]
        }
    }

    /// The held events whose grace is over at `now`, in the order they came.
    mutating func expire(now: ContinuousClock.Instant) -> [WebhookEvent] {
        var due: [WebhookEvent] = []
        while let first = queue.first {
            guard let entry = held[first.key], entry.serial == first.serial else {
                queue.removeFirst()  // cancelled, or held again later under a newer serial
                continue
            }
            guard entry.due <= now else { break }
            queue.removeFirst()
            held[first.key] = nil
            due.append(entry.event)
        }
        return due
    }

    /// When the next held event is due, if any.
    var nextDue: ContinuousClock.Instant? {
        queue.lazy.compactMap { item in self.held[item.key].flatMap { $0.serial == item.serial ? $0.due : nil } }.first
    }

    /// Every held event at once, in order (shutdown: nothing is left unsaid).
    mutating func flush() -> [WebhookEvent] {
        let events = queue.compactMap { item in held[item.key].flatMap { $0.serial == item.serial ? $0.event : nil } }
        held = [:]
        queue = []
        return events
    }

    private mutating func hold(_ key: Key, _ event: WebhookEvent, now: ContinuousClock.Instant) {
        serial += 1
        held[key] = Held(event: event, due: now + .milliseconds(Int64(seconds * 1000)), serial: serial)
        queue.append((key, serial))
    }
}
