import PusherProtocol
import PushtopRedis

extension RedisBackplane {
    /// The cluster's channels from the counts every node keeps in Redis; `nil` (answer locally) when Redis is
    /// away.
    public func channelSummaries(prefix: String) async -> [ChannelSummary]? {
        guard health == .up, let counts = try? await redis.hashGetAll(keyPrefix + "subs") else { return nil }
        var summaries: [ChannelSummary] = []
        var presence: [String] = []
        for (name, value) in counts where name.hasPrefix(prefix) && !name.hasPrefix("#") {
            guard let count = Int(String(buffer: value)), count > 0 else { continue }
            let isPresence = ChannelKind(channelName: name) == .presence
            if isPresence { presence.append(name) }
            summaries.append(ChannelSummary(name: name, subscriptionCount: count, userCount: isPresence ? 0 : nil))
        }
        if !presence.isEmpty {
            guard
                let replies = try? await redis.send(
                    presence.map { RedisCommand("HLEN", .string(keyPrefix + "pu:" + $0)) })
            else { return nil }
            let users = Dictionary(uniqueKeysWithValues: zip(presence, replies.map { Int($0.integer ?? 0) }))
            for index in summaries.indices where summaries[index].userCount != nil {
                summaries[index].userCount = users[summaries[index].name] ?? 0
            }
        }
        return summaries.sorted { $0.name < $1.name }
    }

    /// One channel's cluster-wide counts; `nil` when Redis is away.
    public func channelSummary(_ name: String) async -> ChannelSummary? {
        guard health == .up else { return nil }
        let commands = [
            RedisCommand("HGET", .string(keyPrefix + "subs"), .string(name)),
            RedisCommand("HLEN", .string(keyPrefix + "pu:" + name)),
        ]
        guard let replies = try? await redis.send(commands), replies.count == 2 else { return nil }
        let count = max(0, Int(replies[0].integer ?? 0))
        let isPresence = ChannelKind(channelName: name) == .presence
        return ChannelSummary(
            name: name, subscriptionCount: count,
            userCount: isPresence ? Int(replies[1].integer ?? 0) : nil)
    }

    /// A presence channel's members across the cluster; `nil` when Redis is away.
    public func users(in channel: String) async -> [String]? {
        guard health == .up,
            let reply = try? await redis.send(RedisCommand("HKEYS", .string(keyPrefix + "pu:" + channel)))
        else { return nil }
        return (reply.array ?? []).compactMap(\.string).sorted()
    }
}
