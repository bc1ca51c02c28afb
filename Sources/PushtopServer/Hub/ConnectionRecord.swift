/// A connection's live state in the hub.
struct ConnectionRecord {
    let socketID: String
    /// Where its frames go.
    let outbox: ConnectionOutlet
    /// Channels this connection is subscribed to.
    var channels: Set<String> = []
    /// The user id this connection holds on each presence channel it joined.
    var presenceUserIDs: [String: String] = [:]
    /// When the client last sent anything.
    var lastActivity: ContinuousClock.Instant
    /// When it connected (a disconnection's lifetime in the debug feed).
    let openedAt: ContinuousClock.Instant
    /// When the server sent `pusher:ping` and is waiting for any reply.
    var pingSentAt: ContinuousClock.Instant?
    /// Limits client events per second.
    var clientEvents: TokenBucket
}
