/// The books of a fault test: which numbered events were published on each channel, which of them the client
/// had to receive, and what it did receive.
///
/// An event *counts* when it was published while the client was known to be subscribed: after its `subscribed`
/// line and before the next fault, or after the `subscribed` line that followed the fault. Pusher has no replay,
/// so events published while the client was cut off may or may not arrive and are not counted; but whatever
/// arrives must arrive once and in order.
struct DeliveryLedger: Sendable {
    /// The last number published on each channel.
    private(set) var lastPublished: [String: Int] = [:]
    /// The numbers that must arrive, per channel, not yet received.
    private(set) var outstanding: [String: Set<Int>] = [:]
    private var received: [String: Set<Int>] = [:]
    private var highest: [String: Int] = [:]
    /// Counted events that never arrived (set by ``closeWindow()``).
    private(set) var losses = 0
    /// Events received more than once.
    private(set) var duplicates = 0
    /// Events received after a higher number of the same channel.
    private(set) var reorders = 0
    /// Events published, counted or not.
    private(set) var published = 0
    /// Counted events published.
    private(set) var counted = 0
    /// Events received (first copies).
    private(set) var delivered = 0

    /// Numbers the next event of `channel`, recording whether it must arrive.
    mutating func publish(on channel: String, counted isCounted: Bool) -> Int {
        let n = (lastPublished[channel] ?? 0) + 1
        lastPublished[channel] = n
        published += 1
        if isCounted {
            counted += 1
            outstanding[channel, default: []].insert(n)
        }
        return n
    }

    /// Records an event the client printed.
    mutating func receive(on channel: String, number n: Int) {
        if received[channel, default: []].contains(n) {
            duplicates += 1
            return
        }
        received[channel, default: []].insert(n)
        delivered += 1
        if let top = highest[channel], n < top { reorders += 1 }
        highest[channel] = max(highest[channel] ?? n, n)
        outstanding[channel]?.remove(n)
    }

    /// Whether every counted event has arrived.
    var allDelivered: Bool { outstanding.values.allSatisfy(\.isEmpty) }

    /// The counted events still missing, as `channel#n`, for failure messages (at most `limit`).
    func missing(limit: Int = 10) -> [String] {
        outstanding.sorted { $0.key < $1.key }.flatMap { channel, numbers in numbers.sorted().map { "\(channel)#\($0)" }
        }
        .prefix(limit).map { $0 }
    }

    /// Gives up a counting window whose premise broke (the client reconnected on its own): what is still
    /// outstanding is no longer owed, and is neither a loss nor counted.
    mutating func forgiveWindow() {
        for (channel, numbers) in outstanding {
            counted -= numbers.count
            outstanding[channel] = []
        }
    }

    /// Ends a counting window: whatever counted event has not arrived by now is a loss.
    mutating func closeWindow() {
        for (channel, numbers) in outstanding {
            losses += numbers.count
            outstanding[channel] = []
        }
    }
}
