extension PusherHub {
    /// The counters, with the current number of connections and occupied channels.
    public var statistics: HubStats {
        var snapshot = stats
        snapshot.connections = connections.count
        snapshot.channels = channels.values.filter { !$0.subscribers.isEmpty }.count
        snapshot.webhookFailures = webhooks?.failedPosts ?? 0
        snapshot.inboxDrops = inbox.droppedMessages
        snapshot.webhookDrops = webhooks?.droppedEvents ?? 0
        return snapshot
    }
}
