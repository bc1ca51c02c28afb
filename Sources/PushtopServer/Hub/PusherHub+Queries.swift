import PusherProtocol

extension PusherHub {
    /// Occupied channels whose name starts with `prefix`, sorted by name.
    public func channelSummaries(prefix: String = "") -> [ChannelSummary] {
        // Users' own channels (`#server-to-user-…`) are not channels an app lists.
        channels.keys.filter { $0.hasPrefix(prefix) && !$0.hasPrefix("#") }.sorted().map { channelSummary($0) }
    }

    /// One channel's state; an unoccupied channel reports zero subscribers.
    public func channelSummary(_ name: String) -> ChannelSummary {
        let record = channels[name]
        let isPresence = ChannelKind(channelName: name) == .presence
        return ChannelSummary(
            name: name, subscriptionCount: record?.subscribers.count ?? 0,
            userCount: isPresence ? (record?.members.count ?? 0) : nil)
    }

    /// The user ids on a presence channel, in the order they joined.
    public func users(in channel: String) -> [String] {
        channels[channel]?.memberOrder ?? []
    }

    /// The socket ids of open connections (for tests and diagnostics).
    public func socketIDs() -> [String] {
        connections.values.map(\.socketID)
    }
}
