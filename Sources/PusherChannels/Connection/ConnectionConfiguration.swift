/// The timing and retry settings of a connection.
public struct ConnectionConfiguration: Sendable, Hashable {
    /// Connect over TLS (`wss://`).
    public var useTLS: Bool
    /// Idle seconds before the client pings; the smaller of this and the server's `activity_timeout` wins.
    /// `nil` takes the server's value.
    public var activityTimeout: Double?
    /// Seconds to wait for a reply to a ping before the connection is considered dead.
    public var pongTimeout: Double
    /// Seconds of failed attempts after which the state becomes `unavailable` (retries go on).
    public var unavailableTimeout: Double
    /// Seconds an opened socket may take to send `pusher:connection_established`.
    public var handshakeTimeout: Double
    /// How to reconnect after a drop.
    public var reconnect: ReconnectPolicy

    /// The activity timeout when neither side gives one (pusher-js's default).
    public static let defaultActivityTimeout: Double = 120

    /// - Parameters:
    ///   - useTLS: connect over `wss://` (the default).
    ///   - activityTimeout: idle seconds before a ping; `nil` takes the server's value.
    ///   - pongTimeout: seconds to wait for a pong (30 by default).
    ///   - unavailableTimeout: seconds of failed attempts before the state becomes `unavailable` (10 by default).
    ///   - handshakeTimeout: seconds to wait for `pusher:connection_established` (10 by default).
    ///   - reconnect: how to reconnect after a drop.
    public init(
        useTLS: Bool = true, activityTimeout: Double? = nil, pongTimeout: Double = 30,
        unavailableTimeout: Double = 10, handshakeTimeout: Double = 10,
        reconnect: ReconnectPolicy = .default
    ) {
        self.useTLS = useTLS
        self.activityTimeout = activityTimeout
        self.pongTimeout = pongTimeout
        self.unavailableTimeout = unavailableTimeout
        self.handshakeTimeout = handshakeTimeout
        self.reconnect = reconnect
    }
}
