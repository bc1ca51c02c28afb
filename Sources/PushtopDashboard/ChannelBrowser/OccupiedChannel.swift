import PusherProtocol

/// One occupied channel, as the app's HTTP API lists it.
public struct OccupiedChannel: Sendable, Hashable {
    public var name: String
    /// `subscription_count`, when the server reports it.
    public var subscriptionCount: Int?
    /// `user_count` (presence channels).
    public var userCount: Int?

    public init(name: String, subscriptionCount: Int? = nil, userCount: Int? = nil) {
        self.name = name
        self.subscriptionCount = subscriptionCount
        self.userCount = userCount
    }
}

extension OccupiedChannel {
    /// The channel `name` with the counts of its `info` object, as `GET /channels` answers them and recordings
    /// keep them (`subscription_count`, `user_count`).
    public init(name: String, info: JSONValue) {
        self.init(
            name: name, subscriptionCount: info["subscription_count"]?.intValue, userCount: info["user_count"]?.intValue
        )
    }
}
