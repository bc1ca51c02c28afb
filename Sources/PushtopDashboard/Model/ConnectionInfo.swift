import PusherProtocol

/// What the connection pane shows.
public struct ConnectionInfo: Sendable, Hashable {
    public var state: ConnectionState = .initialized
    /// Host and TLS, from the backend (e.g. `ws-eu.pusher.com:443 TLS`).
    public var endpoint: String = ""
    public var socketID: String?
    /// When the current connection was established.
    public var connectedSince: Double?
    /// Attempts to connect again after a connection was lost.
    public var reconnects = 0
    public var lastClosure: ConnectionClosure?
    /// When the next connection attempt starts.
    public var nextAttemptAt: Double?
    /// The last ping round trip in seconds.
    public var roundTrip: Double?
    /// When the last frame (any client event) arrived.
    public var lastFrameAt: Double?
    /// Whether the connection was ever established (reconnects count only after that).
    var wasConnected = false
    /// Events per second, all channels.
    public var rate = RateCounter()
    public var totalEvents = 0
    /// The user the connection is signed in as (`pusher:signin_success`), `nil` when not signed in.
    public var signedInUser: String?
    /// Why the last sign-in failed, until the next one succeeds.
    public var signInError: String?
    /// Signing in was asked for (the `i` key or `--sign-in`) and not undone.
    public var signInRequested = false

    public init() {}
}
