import Synchronization

/// How long a case waits on the server's own clocks (its idle ping, its close after an unanswered ping, its
/// webhook retries): such a case runs only with `--long`, with the server's real timings.
public enum ServerWait: Sendable, Hashable {
    /// The server's `activity_timeout` plus this many seconds.
    case afterActivityTimeout(plus: Double)
    /// This many seconds, whatever the server.
    case seconds(Double)

    /// The longest the case waits against a server that announced `activityTimeout` (Pusher's 120 s when unknown).
    public func seconds(activityTimeout: Double?) -> Double {
        switch self {
        case .afterActivityTimeout(let plus): return (activityTimeout ?? 120) + plus
        case .seconds(let seconds): return seconds
        }
    }
}

/// The server's timings as the preflight found them (its `activity_timeout`), shared by the runner's copies.
public final class ServerTimings: Sendable {
    private let state = Mutex<Double?>(nil)

    public init() {}

    /// The `activity_timeout` of the first node's `pusher:connection_established`, once the preflight saw it.
    public var activityTimeout: Double? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
