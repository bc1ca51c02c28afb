/// The states of a Pusher connection, as pusher-js names them.
public enum ConnectionState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Created, never asked to connect.
    case initialized
    /// Trying to connect, or to reconnect after a drop.
    case connecting
    /// Open and `pusher:connection_established` received.
    case connected
    /// Attempts keep failing (no handshake within the unavailable timeout); retries go on.
    case unavailable
    /// Refused by the server or out of retries: no further attempt.
    case failed
    /// Closed on request.
    case disconnected

    public var description: String { rawValue }
}

/// A change of connection state: `previous -> current`.
public struct StateChange: Sendable, Hashable {
    /// The state before the change.
    public var previous: ConnectionState
    /// The state after the change.
    public var current: ConnectionState
    /// The socket id, on changes to `connected` only.
    public var socketID: String?

    /// A change from `previous` to `current`; `socketID` is set when the new state is `connected`.
    public init(previous: ConnectionState, current: ConnectionState, socketID: String? = nil) {
        self.previous = previous
        self.current = current
        self.socketID = socketID
    }
}
