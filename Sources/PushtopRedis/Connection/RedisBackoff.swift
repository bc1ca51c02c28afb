/// How long a Redis connection waits before each reconnection attempt: exponential from ``initial`` up to
/// ``maximum``, moved by a bounded random jitter so that the nodes of a cluster do not all return at once.
///
/// A Redis connection never gives up: a cluster node keeps serving its own sockets while Redis is away and
/// rejoins as soon as it is back.
public struct RedisBackoff: Sendable, Hashable {
    /// The delay before the first retry.
    public var initial: Duration
    /// The longest delay.
    public var maximum: Duration
    /// The factor between one delay and the next.
    public var multiplier: Double
    /// The jitter's bound as a fraction of the delay (0 to 1).
    public var jitter: Double

    /// A back-off; the default goes 100 ms, 200 ms, 400 ms ... up to 5 s, ±20 %.
    public init(
        initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5), multiplier: Double = 2,
        jitter: Double = 0.2
    ) {
        self.initial = max(.zero, initial)
        self.maximum = max(self.initial, maximum)
        self.multiplier = max(1, multiplier)
        self.jitter = min(max(0, jitter), 1)
    }

    /// The delay before retry number `retry` (1-based: 1 is the first retry after a failure), with the jitter
    /// drawn from `unitRandom` (a value in 0...1; 0.5 means none).
    public func delay(retry: Int, unitRandom: Double = Double.random(in: 0...1)) -> Duration {
        let base = initial.seconds * pow(multiplier, max(0, retry - 1))
        let capped = min(maximum.seconds, base)
        let jittered = capped * (1 + jitter * (2 * min(max(unitRandom, 0), 1) - 1))
        return .milliseconds(Int((min(maximum.seconds, max(0, jittered)) * 1000).rounded()))
    }

    private func pow(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<min(exponent, 64) { result *= base }
        return result
    }
}
