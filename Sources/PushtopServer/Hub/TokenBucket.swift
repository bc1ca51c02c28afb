/// A rate limiter: `capacity` actions at once, refilled at `capacity` per second.
struct TokenBucket: Sendable {
    let capacity: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(perSecond: Int, now: ContinuousClock.Instant) {
        capacity = Double(max(perSecond, 1))
        tokens = capacity
        last = now
    }

    /// Takes one token; `false` when the rate is exceeded.
    mutating func take(now: ContinuousClock.Instant) -> Bool {
        let elapsed = now - last
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        tokens = min(capacity, tokens + seconds * capacity)
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
