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

    /// The simulator could not seal an event for `channel` (so sent none): counted, and an `error` row on the
    /// debug feed (rule `simulator_seal`) so that the console shows why the channel went quiet.
    func recordSimulatorSealFailure(channel: String, reason: String) {
        stats.simulatorSealFailures += 1
        console.emit {
            consoleErrorRow(
                .error, channel: channel, code: nil, reason: "the simulator could not encrypt an event: \(reason)",
                rule: "simulator_seal")
        }
    }
}
