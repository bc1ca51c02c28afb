import NIOCore

/// What the hub asks a connection's socket to do: send one text frame, or close with a code.
///
/// Text frames are encoded once per event and channel and shared by every subscriber (a `ByteBuffer` is
/// copy-on-write), so fanning one event out to N sockets does not re-encode it N times.
public enum OutboundFrame: Sendable {
    /// A Pusher protocol message, already encoded as UTF-8 JSON.
    case text(ByteBuffer)
    /// Close the WebSocket with this code and reason; nothing is sent after it.
    case close(code: Int, reason: String)

    /// The frame's text, for tests and logs.
    public var text: String? {
        if case .text(let buffer) = self { return String(buffer: buffer) }
        return nil
    }
}
