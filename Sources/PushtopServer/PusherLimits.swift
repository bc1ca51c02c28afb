/// Pusher's quotas and size limits, enforced with Pusher's own error responses.
public struct PusherLimits: Sendable, Hashable {
    /// Bytes of `data` in one event (HTTP API and client events): 10 KB.
    public var maxEventDataBytes: Int = 10_240
    /// Characters of an event name.
    public var maxEventNameLength: Int = 200
    /// Channels named in one `POST /events`.
    public var maxChannelsPerTrigger: Int = 100
    /// Events in one `POST /batch_events`.
    public var maxEventsPerBatch: Int = 10
    /// Distinct users in one presence channel.
    public var maxPresenceMembers: Int = 100
    /// Bytes of a presence member's `user_info` (as JSON).
    public var maxUserInfoBytes: Int = 1_024
    /// Characters of a presence `user_id`.
    public var maxUserIDLength: Int = 128
    /// Client events one connection may send per second.
    public var clientEventsPerSecond: Int = 10
    /// Bytes of one WebSocket message from a client (frames above it close the connection).
    public var maxMessageBytes: Int = 1 << 20
    /// Frames queued for one in-process client (``PusherHub/open(appKey:protocolVersion:)``) before the hub
    /// gives up on it and ends its stream.
    public var maxQueuedFrames: Int = 8_192
    /// The high-water mark of a WebSocket: unsent bytes (in the server's buffer, beyond what the kernel took)
    /// past which the client is a slow consumer and is closed with 4100. Writing resumes below half of it.
    public var maxPendingOutboundBytes: Int = 1 << 20
    /// Connections the app may have open at once on this node; one more is refused with 4004 (`nil`: no quota).
    public var maxConnections: Int? = nil
    /// Whether clients may send `client-` events; when `false` each is refused with `pusher:error`.
    public var clientEventsEnabled: Bool = true
    /// HTTP API requests the app may make per second on this node; more are answered 429 (`nil`: no limit).
    public var apiRequestsPerSecond: Int? = nil

    /// Pusher's limits.
    public init() {}
}
