/// One WebSocket frame as it crossed the wire, in either direction: what the wire inspector, `watch --frames`
/// and recordings show.
///
/// Values only: the client's frame tap produces them, consumers (the dashboard, `watch`, a recorder) keep them.
public struct WireFrame: Sendable, Hashable {
    /// Which way the frame went.
    public enum Direction: String, Sendable, Hashable {
        /// From the server to this client.
        case inbound = "in"
        /// From this client to the server.
        case outbound = "out"
    }

    /// The frame's WebSocket opcode, as far as Pusher uses them.
    public enum Kind: String, Sendable, Hashable {
        case text, binary, ping, pong, close
    }

    /// Seconds since 1970 when the frame was received or sent.
    public var time: Double
    /// Which way the frame went.
    public var direction: Direction
    /// The frame's opcode.
    public var kind: Kind
    /// The payload size in bytes (after inflation, for compressed messages).
    public var size: Int
    /// The payload as text, exactly as on the wire (a text frame's JSON, a close frame's reason); empty for binary
    /// frames and empty control frames.
    public var text: String
    /// The close code of a close frame.
    public var closeCode: Int?

    /// A frame record.
    public init(time: Double, direction: Direction, kind: Kind, size: Int, text: String, closeCode: Int? = nil) {
        self.time = time
        self.direction = direction
        self.kind = kind
        self.size = size
        self.text = text
        self.closeCode = closeCode
    }
}
