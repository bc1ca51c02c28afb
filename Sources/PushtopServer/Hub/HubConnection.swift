/// A connection's identity inside the hub.
public struct ConnectionID: Sendable, Hashable, CustomStringConvertible {
    /// A number unique among the connections of one server, counting from 1.
    public let rawValue: Int
    public var description: String { "conn#\(rawValue)" }
}

/// One client attached to the hub: what a WebSocket (or an in-process client such as the simulator) gets
/// back from ``PusherHub/open(appKey:protocolVersion:)``.
///
/// The owner forwards every received text message to ``PusherHub/receive(_:from:)``, writes every element of
/// ``frames`` to its peer, and calls ``PusherHub/disconnect(_:)`` when the peer goes away. When ``frames`` ends
/// without a ``OutboundFrame/close(code:reason:)`` the hub dropped the connection for falling too far behind.
public struct HubConnection: Sendable {
    /// The connection's identity in the hub: what ``PusherHub/receive(_:from:)`` and ``PusherHub/disconnect(_:)`` take.
    public let id: ConnectionID
    /// The `socket_id` sent in `pusher:connection_established`; `nil` when the connection was refused.
    public let socketID: String?
    /// Frames to send, in order; ends after a close.
    public let frames: AsyncStream<OutboundFrame>
}
