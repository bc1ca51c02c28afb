/// What the HTTP API reports about a channel.
public struct ChannelSummary: Sendable, Hashable {
    /// The channel's name.
    public var name: String
    /// Connections subscribed to it.
    public var subscriptionCount: Int
    /// Distinct presence members (presence channels only).
    public var userCount: Int?
    /// Whether anyone is subscribed.
    public var occupied: Bool { subscriptionCount > 0 }

    /// A summary of one channel.
    public init(name: String, subscriptionCount: Int, userCount: Int?) {
        self.name = name
        self.subscriptionCount = subscriptionCount
        self.userCount = userCount
    }
}
