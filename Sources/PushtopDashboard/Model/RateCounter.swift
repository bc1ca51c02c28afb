/// Counts events in one-second buckets for the last minute: the data of a sparkline.
public struct RateCounter: Sendable, Hashable {
    public static let seconds = 60
    private var buckets: [Int32] = Array(repeating: 0, count: RateCounter.seconds)
    /// The whole second of the newest bucket.
    private var newestSecond: Int = 0

    public init() {}

    /// Adds `n` events at time `now`: in the bucket of `now`'s second (an event read before the newest tick
    /// counts in its own second, not the tick's).
    public mutating func record(_ n: Int = 1, at now: Double) {
        advance(to: now)
        let second = Int(now)
        let target =
            second < newestSecond && newestSecond - second < Self.seconds && second >= 0 ? second : newestSecond
        buckets[target % Self.seconds] &+= Int32(clamping: n)
    }

    /// Moves the window so that the newest bucket is `now`'s second (older seconds become zero).
    public mutating func advance(to now: Double) {
        let second = Int(now)
        guard second > newestSecond else { return }
        let gap = min(second - newestSecond, Self.seconds)
        for i in 1...gap { buckets[(newestSecond + i) % Self.seconds] = 0 }
        newestSecond = second
    }

    /// The last `count` complete-or-current seconds, oldest first (the newest is the current second).
    public func recent(_ count: Int) -> [Int] {
        let n = min(count, Self.seconds)
        guard n > 0 else { return [] }
        return (0..<n).map { i in
            let second = newestSecond - (n - 1 - i)
            return second < 0 ? 0 : Int(buckets[((second % Self.seconds) + Self.seconds) % Self.seconds])
        }
    }

    /// Events in the last complete second (the rate to print).
    public var lastSecond: Int {
        Int(buckets[((newestSecond - 1) % Self.seconds + Self.seconds) % Self.seconds])
    }
}
