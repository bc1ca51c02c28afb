/// Something that happened on a transport connection.
public enum TransportEvent: Sendable {
    /// The WebSocket handshake completed.
    case opened
    /// A text frame arrived.
    case text(String)
    /// A binary frame arrived (Pusher does not use them; the client reports and skips it).
    case binary(size: Int)
    /// The connection ended: with the server's close code, or `nil` when it failed or never opened.
    case closed(code: Int?, reason: String)
}

/// Opens WebSocket connections for the client.
///
/// The client core talks to the network only through this protocol, so tests can also drive it with a
/// scripted transport; ``WebSocketTransport`` is the real one.
public protocol PusherTransport: Sendable {
    /// Starts connecting to `url`; everything that happens on the connection is passed to `handler`, in
    /// order, ending with exactly one `.closed`.
    func open(url: String, handler: @escaping @Sendable (TransportEvent) -> Void) -> any TransportConnection
}

/// One open (or opening) connection.
public protocol TransportConnection: Sendable {
    /// Queues a text frame; frames sent before the socket opens go out once it does.
    func send(_ text: String)
    /// Closes the connection with a close code; `.closed` follows.
    func close(code: Int, reason: String)
}
