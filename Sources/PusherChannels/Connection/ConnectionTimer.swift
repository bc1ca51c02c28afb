/// The timers a connection runs.
public enum ConnectionTimer: String, Sendable, Hashable, CaseIterable {
    /// Waits before the next connection attempt.
    case retry
    /// Fires when nothing has been received for the activity timeout: time to ping.
    case activity
    /// Fires when a ping got no reply in time: the connection is dead.
    case pong
    /// Fires when attempts have not succeeded for the unavailable timeout: state `unavailable`.
    case unavailable
    /// Fires when an opened socket did not complete the Pusher handshake in time.
    case handshake
}
