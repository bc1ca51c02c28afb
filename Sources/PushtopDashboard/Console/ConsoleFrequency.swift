import PusherProtocol

/// "Frequently seen": how often each channel and event appeared over the last minute, in one-second buckets (a
/// ring of 60), so adding a row is two dictionary increments and the window slides by itself.
public struct ConsoleFrequency: Sendable {
    /// The window, in seconds.
    public static let window = 60

    private struct Bucket: Sendable {
        var second: Int64 = .min
        var channels: [String: Int] = [:]
        var events: [String: Int] = [:]
    }

    private var buckets = [Bucket](repeating: Bucket(), count: ConsoleFrequency.window)

    public init() {}

    /// Counts a row's channel (every channel of an API message) and event.
    public mutating func add(_ row: ConsoleRow) {
        let second = row.timeMs / 1000
        let i =
            Int(((second % Int64(ConsoleFrequency.window)) + Int64(ConsoleFrequency.window)))
            % ConsoleFrequency.window
        if buckets[i].second != second {
            guard buckets[i].second < second else { return }  // older than the window already
            buckets[i] = Bucket(second: second)
        }
        if let channels = row.channels, !channels.isEmpty {
            for c in channels { buckets[i].channels[c, default: 0] += 1 }
        } else if let c = row.channel {
            buckets[i].channels[c, default: 0] += 1
        }
        if let e = row.event { buckets[i].events[e, default: 0] += 1 }
    }

    /// The busiest channels and events over the minute before `nowMs`, most frequent first (ties by name).
    public func top(_ n: Int, nowMs: Int64) -> (channels: [(String, Int)], events: [(String, Int)]) {
        let now = nowMs / 1000
        var channels: [String: Int] = [:]
        var events: [String: Int] = [:]
        for b in buckets where b.second > now - Int64(ConsoleFrequency.window) && b.second <= now {
            channels.merge(b.channels, uniquingKeysWith: +)
            events.merge(b.events, uniquingKeysWith: +)
        }
        func best(_ d: [String: Int]) -> [(String, Int)] {
            Array(d.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(n))
                .map { ($0.key, $0.value) }
        }
        return (best(channels), best(events))
    }
}
