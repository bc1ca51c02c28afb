/// Where a Redis connection stands, as reported to the server's logs, `/metrics` and health endpoint.
public enum RedisConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Connecting (the first time, or again after ``down(reason:attempt:retryIn:)``); `attempt` counts from 1.
    case connecting(attempt: Int)
    /// Connected, signed in, database selected (and, for a subscriber, subscriptions restored): commands flow.
    case up
    /// Not connected: the last attempt failed or the connection was lost for `reason`; the next attempt (number
    /// `attempt`) starts after `retryIn`.
    case down(reason: String, attempt: Int, retryIn: Duration)
    /// Closed for good by its owner.
    case closed

    /// Whether commands can be sent now.
    public var isUp: Bool { self == .up }

    public var description: String {
        switch self {
        case .connecting(let attempt): attempt == 1 ? "connecting" : "connecting (attempt \(attempt))"
        case .up: "up"
        case .down(let reason, _, let retryIn): "down (\(reason)); retrying in \(retryIn.formattedSeconds)"
        case .closed: "closed"
        }
    }
}

extension Duration {
    /// "0.25 s", "5 s".
    var formattedSeconds: String {
        let (seconds, attoseconds) = components
        let total = Double(seconds) + Double(attoseconds) / 1e18
        let rounded = (total * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? "\(Int(rounded)) s" : "\(rounded) s"
    }

    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
