import NIOCore
import PusherProtocol

/// Something that happened on a transport connection, already decoded on the connection's event loop.
public enum TransportEvent: Sendable {
    /// The WebSocket handshake completed.
    case opened
    /// A text frame arrived and decoded into a Pusher message. `raw` is the frame's exact text when the
    /// transport was asked to keep it (a frame tap is on, or ``TransportSettings/keepRawFrames``), else `nil`.
    case message(PusherMessage, raw: String?)
    /// A frame arrived that is not a Pusher message (bad JSON, binary, too large): reported and skipped.
    case malformed(PusherMessageError)
    /// The connection ended: with the server's close code, or `nil` when it failed or never opened.
    case closed(code: Int?, reason: String)
}

/// What a transport needs to know about one connection besides its URL.
public struct TransportSettings: Sendable {
    /// The largest WebSocket message accepted; a bigger one closes the connection with 1009.
    public var maxMessageSize: Int
    /// Text frames larger than this (bytes) are reported as `PusherMessageError/tooLarge(size:limit:)` and skipped.
    public var maxFrameSize: Int
    /// A PEM file of certificate authorities trusted for `wss://` besides the system's.
    public var caFile: String?
    /// Keep each text frame's exact text in ``TransportEvent/message(_:raw:)`` even when no frame tap is on.
    public var keepRawFrames: Bool
    /// Seconds the TCP connection may take to open.
    public var connectTimeout: Double
    /// Seconds to wait for the server's reply to our close frame before the TCP connection is dropped.
    public var closeTimeout: Double
    /// Seconds between two socket reads on a busy connection, so that one wake-up reads many frames (0: read as soon
    /// as anything arrives). A quiet connection still reads at once; on a busy one an event waits at most this long.
    public var readCoalescing: Double = 0

    /// - Parameters:
    ///   - maxMessageSize: the largest WebSocket message, in bytes (16 MiB by default).
    ///   - maxFrameSize: the largest text frame decoded, in bytes (1 MiB by default).
    ///   - caFile: a PEM file of extra certificate authorities to trust.
    ///   - keepRawFrames: keep each frame's text even without a frame tap.
    ///   - connectTimeout: seconds the TCP connection may take to open (10 by default).
    ///   - closeTimeout: seconds to wait for the server's close reply (3 by default).
    public init(
        maxMessageSize: Int = 16 << 20, maxFrameSize: Int = 1 << 20, caFile: String? = nil,
        keepRawFrames: Bool = false, connectTimeout: Double = 10, closeTimeout: Double = 3
    ) {
        self.maxMessageSize = maxMessageSize
        self.maxFrameSize = maxFrameSize
        self.caFile = caFile
        self.keepRawFrames = keepRawFrames
        self.connectTimeout = connectTimeout
        self.closeTimeout = closeTimeout
    }
}

/// Opens WebSocket connections for the client.
///
/// The client core talks to the network only through this protocol, so tests can also drive it with a
/// scripted transport; ``WebSocketTransport`` is the real one.
public protocol PusherTransport: Sendable {
    /// Starts connecting to `url` on `eventLoop`. Everything that happens on the connection is passed to
    /// `deliver`, in order, one read burst per call (ideally on `eventLoop`), ending with exactly one `.closed`.
    /// Every frame in both directions is also offered to `tap` while it is on.
    func open(
        url: String, on eventLoop: any EventLoop, settings: TransportSettings, tap: FrameTap,
        deliver: @escaping @Sendable ([TransportEvent]) -> Void
    ) -> any TransportConnection
}

/// One open (or opening) connection.
public protocol TransportConnection: Sendable {
    /// Queues a text frame; frames sent before the socket opens go out once it does.
    func send(_ text: String)
    /// Sends a close frame with a close code; `.closed` follows once the server replied (or did not in time).
    func close(code: Int, reason: String)
}
