extension PusherHub {
    /// The occupied channels of the cluster (of this node alone when single or when Redis is away).
    public nonisolated func clusterChannelSummaries(prefix: String = "") async -> [ChannelSummary] {
        if let answer = await backplane.channelSummaries(prefix: prefix) { return answer }
        return await channelSummaries(prefix: prefix)
    }

    /// One channel across the cluster (this node alone when single or when Redis is away).
    public nonisolated func clusterChannelSummary(_ name: String) async -> ChannelSummary {
        if let answer = await backplane.channelSummary(name) { return answer }
        return await channelSummary(name)
    }

    /// A presence channel's user ids across the cluster (this node alone when single or when Redis is away).
    public nonisolated func clusterUsers(in channel: String) async -> [String] {
        if let answer = await backplane.users(in: channel) { return answer }
        return await users(in: channel)
    }
}
