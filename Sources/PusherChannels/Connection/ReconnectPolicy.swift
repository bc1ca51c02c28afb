/// How long to wait before each reconnection attempt, and when to give up.
///
/// Exponential (the default) doubles the delay from `minDelay` up to `maxDelay`; linear adds `minDelay`
/// each attempt; `none` never reconnects on its own. By default the client never gives up, as pusher-js and
/// PusherSwift do: after a network outage or a server restart it keeps trying (every 60 s at most, the state
/// `unavailable` meanwhile) until the server is back; only a refusal (close codes 4000-4099) ends in `failed`.
/// Set ``maxRetries`` for a client that should stop and report instead. A bounded random jitter spreads the attempts of many
/// clients so that they do not all return at once after an outage (PubNub's guide).
public struct ReconnectPolicy: Sendable, Hashable {
    /// How the delay grows with each failed attempt.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case exponential
        case linear
        case none
    }

    /// How the delay grows: exponential, linear or none.
    public var kind: Kind
    /// The first delay, in seconds.
    public var minDelay: Double
    /// The longest delay, in seconds.
    public var maxDelay: Double
    /// Give up after this many failed attempts in a row (the state becomes `failed`); 0, the default, means never
    /// give up.
    public var maxRetries: Int
    /// The jitter's bound as a fraction of the delay: the delay is moved by up to ± this fraction.
    public var jitter: Double

    /// A policy; the defaults are pusher-js's: exponential from 1 s to 60 s, never giving up.
    public init(
        kind: Kind = .exponential, minDelay: Double = 1, maxDelay: Double = 60, maxRetries: Int = 0,
        jitter: Double = 0.2
    ) {
        self.kind = kind
        self.minDelay = max(0, minDelay)
        self.maxDelay = max(self.minDelay, maxDelay)
        self.maxRetries = max(0, maxRetries)
        self.jitter = min(max(0, jitter), 1)
    }

    /// Exponential back-off from 1 s to 60 s with ±20 % jitter, retrying for as long as it takes.
    public static let `default` = ReconnectPolicy()

    /// Whether attempt number `attempt` (1-based) may be made at all.
    public func allows(attempt: Int) -> Bool {
        guard kind != .none else { return false }
        return maxRetries == 0 || attempt <= maxRetries
    }

    /// The delay before attempt `attempt` (1-based), before jitter.
    public func baseDelay(attempt: Int) -> Double {
        let n = max(1, attempt)
        switch kind {
        case .none:
            return 0
        case .linear:
            return min(maxDelay, minDelay * Double(n))
        case .exponential:
            // 2^(n-1) overflows to inf for large n; min() then clamps it.
            return min(maxDelay, minDelay * pow2(n - 1))
        }
    }

    /// The delay before attempt `attempt`, with jitter drawn from `unitRandom` (a value in 0...1), clamped to
    /// `0...maxDelay`.
    public func delay(attempt: Int, unitRandom: Double) -> Double {
        let base = baseDelay(attempt: attempt)
        let offset = base * jitter * (2 * min(max(unitRandom, 0), 1) - 1)
        return min(maxDelay, max(0, base + offset))
    }

    private func pow2(_ exponent: Int) -> Double {
        exponent >= 1024 ? .infinity : Double(sign: .plus, exponent: exponent, significand: 1)
    }
}
