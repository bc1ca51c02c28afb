import Foundation
import Logging
import PusherProtocol
import PushtopRedis

extension RedisBackplane {
    // MARK: Start and stop

    /// Subscribes to the bus, starts the heartbeat, and waits (a few seconds at most) until the link is up and
    /// this node is registered; a Redis that is away is logged and the node serves alone until it is back.
    public func start(hub: PusherHub) async {
        hubBox.withLock { $0 = hub }
        // The state now, then every change, in order: a connection that came up before `start` counts too.
        let commandsLink = Task { [weak self, redis] in
            for await change in redis.stateChanges() { self?.linkChanged(commands: change.isUp) }
        }
        let deliveries = Task { [rings, inbound] in
            for await _ in rings {
                let batch = inbound.messages.withLock { pending in
                    defer { pending.removeAll(keepingCapacity: true) }
                    return pending
                }
                if !batch.isEmpty { await hub.clusterReceive(batch) }
            }
        }
        let links = Task { [linkStream, logger, configuration] in
            for await up in linkStream {
                if up {
                    logger.notice("Redis is up: presence and counts are the cluster's",
                                  metadata: ["node_id": "\(configuration.nodeID)"])
                    await hub.clusterConnected()
                } else {
                    logger.warning("Redis is away: serving this node's own subscribers alone; reconnecting",
                                   metadata: ["node_id": "\(configuration.nodeID)"])
                    await hub.clusterDisconnected()
                }
            }
        }
        let heartbeat = Task { [weak self, configuration] in
            while !Task.isCancelled {
                self?.beat()
                try? await Task.sleep(for: .milliseconds(Int64(configuration.heartbeatInterval * 1000)))
            }
        }
        tasks.withLock { $0 = [deliveries, links, heartbeat, commandsLink] }
        try? await subscriber.subscribe([bus])
        // The subscriber counts as up once the bus is subscribed (its first connection may come up before).
        let subscriberLink = Task { [weak self, subscriber] in
            for await change in subscriber.stateChanges() { self?.linkChanged(subscriber: change.isUp) }
        }
        tasks.withLock { $0.append(subscriberLink) }
        let deadline = ContinuousClock.now + .seconds(3)
        while health != .up, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if health != .up {
            logger.warning("Redis is not reachable yet: serving alone until it is",
                           metadata: ["redis": "\(configuration.redisURL.redactedRedisURL)"])
        }
    }

    /// Removes this node from the cluster (after the hub closed its connections) and disconnects.
    public func stop() async {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        linkChanges.finish()
        doorbell.finish()
        if redis.state.isUp {
            _ = try? await redis.eval(
                RedisScripts.resync,
                arguments: [.string(keyPrefix), .string(configuration.nodeID), "self", countEvents ? "1" : "0",
                            .string(Self.encode(ClusterSnapshot()))])
            _ = try? await redis.delete([keyPrefix + "alive:" + configuration.nodeID])
            _ = try? await redis.setRemove(keyPrefix + "nodes", members: [configuration.nodeID])
        }
        await subscriber.close()
        await redis.close()
    }

    // MARK: The link

    func linkChanged(commands: Bool? = nil, subscriber: Bool? = nil) {
        let change: Bool? = state.withLock { state in
            if let commands { state.commandsUp = commands }
            if let subscriber { state.subscriberUp = subscriber }
            guard state.isUp != state.announcedUp else { return nil }
            state.announcedUp = state.isUp
            if state.isUp {
                state.wasUp = true
            } else {
                state.synced = false
            }
            return state.isUp
        }
        if let change { linkChanges.yield(change) }
    }

    /// Registers this node's whole state in place of what the cluster knew of it.
    func resync(_ snapshot: ClusterSnapshot) {
        // The heartbeat first: registered state always belongs to a node the others watch.
        beat()
        let arguments: [RedisCommand.Argument] = ["self", countEvents ? "1" : "0", .string(Self.encode(snapshot))]
        script(RedisScripts.resync, arguments) { [weak self] reply in
            guard let self else { return }
            guard case .success(let value) = reply else {
                // A timeout on a loaded machine, or an error: try again while the link is up (a link that went
                // down re-registers when it is back), else the node would stay unregistered and `reconnecting`.
                self.logger.warning("could not register this node's presence with the cluster: retrying",
                                    metadata: ["node_id": "\(self.configuration.nodeID)"])
                Task { [weak self] in
                    try? await Task.sleep(for: .milliseconds(250))
                    guard let self, self.state.withLock({ $0.isUp && !$0.synced }), let hub = self.hub else { return }
                    await hub.clusterConnected()
                }
                return
            }
            self.fireWebhooks(resyncReply: value)
            self.state.withLock { $0.synced = true }
            self.refreshRosters(Set(snapshot.presence.map(\.channel)))
            self.logger.info("registered this node's presence with the cluster", metadata: [
                "node_id": "\(self.configuration.nodeID)", "subscriptions": "\(snapshot.subscriptions.values.reduce(0, +))",
                "presence_connections": "\(snapshot.presence.count)",
            ])
        }
    }

    /// Reads the cluster's members of `channels` and hands them to the hub, which tells its sockets what changed
    /// while this node was away: who joined at once; who left only after 1.25 × the node timeout, read again
    /// then, since every other live node has re-registered by that time (after a Redis restart the registry
    /// starts empty, and a member whose node had not re-registered yet would flap out and back in).
    func refreshRosters(_ channels: Set<String>) {
        guard !channels.isEmpty, let hub else { return }
        let names = Array(channels)
        let redis = self.redis
        let keyPrefix = self.keyPrefix
        let grace = Duration.milliseconds(Int64(configuration.nodeTimeout * 1250))
        Task {
            let commands = names.map { RedisCommand("HGETALL", .string(keyPrefix + "pi:" + $0)) }
            for removing in [false, true] {
                if removing { try? await Task.sleep(for: grace) }
                guard let replies = try? await redis.send(commands), replies.count == names.count else { return }
                var rosters: [String: [ClusterMember]] = [:]
                for (name, reply) in zip(names, replies) { rosters[name] = Self.roster(reply) }
                await hub.clusterRosters(rosters, removing: removing)
            }
        }
    }

    /// Refreshes the heartbeat, and removes the nodes whose heartbeat expired.
    func beat() {
        let ttl = Int(configuration.nodeTimeout * 1000)
        script(RedisScripts.heartbeat, [.integer(ttl)]) { [weak self] reply in
            guard let self, case .success(let value) = reply, let parts = value.array, parts.count == 2,
                let dead = parts[1].array?.compactMap(\.string)
            else { return }
            for node in dead where node != self.configuration.nodeID { self.removeDeadNode(node) }
            if parts[0].integer == 0, self.state.withLock({ $0.synced }), let hub = self.hub {
                // Our heartbeat had expired (a long pause): the others may have removed our members.
                self.logger.warning("this node's heartbeat had expired: registering its presence again")
                Task { await hub.clusterConnected() }
            }
        }
    }

    private func removeDeadNode(_ node: String) {
        let command = RedisCommand("EVAL", arguments: [
            .string(RedisScripts.resync), 0, .string(keyPrefix), .string(node), "dead", countEvents ? "1" : "0",
            .string(Self.encode(ClusterSnapshot())),
        ])
        redis.send(command) { [weak self] result in
            guard let self, case .success(let value) = result else { return }
            if let message = value.errorMessage {
                self.logger.error("could not remove a dead node", metadata: ["dead_node": "\(node)", "error": "\(message)"])
                return
            }
            let removed = value.array.map { $0.count == 4 ? ($0[3].array?.count ?? 0) / 2 : 0 } ?? 0
            let vacated = value.array.map { $0.count == 4 ? ($0[1].array?.count ?? 0) : 0 } ?? 0
            guard value.array?.contains(where: { !($0.array?.isEmpty ?? true) }) == true else { return }
            self.state.withLock { $0.nodesRemoved += 1 }
            self.logger.warning("removed a dead node's connections (its heartbeat expired)", metadata: [
                "dead_node": "\(node)", "members_removed": "\(removed)", "channels_vacated": "\(vacated)",
            ])
            self.fireWebhooks(resyncReply: value)
        }
    }

    /// Webhooks for what a resynchronisation changed: {occupied, vacated, added, removed}.
    func fireWebhooks(resyncReply value: RESPValue) {
        guard let webhooks = hub?.webhooks, let parts = value.array, parts.count == 4 else { return }
        for channel in parts[0].array?.compactMap(\.string) ?? [] where !channel.hasPrefix("#") {
            webhooks.enqueue(.channelOccupied(channel: channel))
        }
        for (channel, userID) in Self.pairs(parts[2]) { webhooks.enqueue(.memberAdded(channel: channel, userID: userID)) }
        for (channel, userID) in Self.pairs(parts[3]) {
            webhooks.enqueue(.memberRemoved(channel: channel, userID: userID))
        }
        for channel in parts[1].array?.compactMap(\.string) ?? [] where !channel.hasPrefix("#") {
            webhooks.enqueue(.channelVacated(channel: channel))
        }
    }

    static func pairs(_ value: RESPValue) -> [(String, String)] {
        let flat = value.array?.compactMap(\.string) ?? []
        return stride(from: 0, to: flat.count - 1, by: 2).map { (flat[$0], flat[$0 + 1]) }
    }

    /// The snapshot as the resync script reads it.
    static func encode(_ snapshot: ClusterSnapshot) -> String {
        let subscriptions = JSONValue.object(snapshot.subscriptions.mapValues { .number(Double($0)) })
        let presence = JSONValue.array(snapshot.presence.map {
            .array([.string($0.channel), .string($0.socketID), .string($0.member.userID), .string($0.member.infoJSON)])
        })
        let users = JSONValue.array(snapshot.users.map { .array([.string($0.socketID), .string($0.userID)]) })
        return JSONValue.object(["s": subscriptions, "p": presence, "u": users]).jsonString
    }
}

extension String {
    /// A Redis URL with any password shown as `***`.
    var redactedRedisURL: String {
        (try? RedisURL(self)).map { "\($0)" } ?? "(invalid URL)"
    }
}
