import Foundation
import Logging
import PusherProtocol
import PushtopRedis
import ServiceLifecycle
import Synchronization

extension RedisBackplane {
    // MARK: Running

    /// Carries messages for `hub` until the server shuts down gracefully (or the task is cancelled): follows both
    /// connections, heartbeats, and performs what `ClusterLinkStateMachine` decides. Calls `started` once the link
    /// is up and this node registered, or after a few seconds without (logged: the node serves alone until Redis is
    /// back). Then removes this node from the cluster (after the hub closed its connections) and disconnects.
    public func run(hub: PusherHub, started: @escaping @Sendable () -> Void) async {
        hubBox.withLock { $0 = hub }
        consoleBox.console.withLock { $0 = hub.console }
        feed(.started)
        await withDiscardingTaskGroup { group in
            // The state now, then every change, in order: a connection that came up before the start counts too.
            group.addTask { [redis] in
                for await change in redis.stateChanges() { self.feed(.commandsConnection(up: change.isUp)) }
            }
            group.addTask { [subscriber, bus, consoleChannel] in
                // The subscriber counts as up once the bus is subscribed (its first connection may come up before).
                try? await subscriber.subscribe([bus, consoleChannel])
                for await change in subscriber.stateChanges() { self.feed(.busSubscription(up: change.isUp)) }
            }
            group.addTask { await self.deliverInbound(to: hub) }
            group.addTask { await self.deliverReplies(to: hub) }
            group.addTask { [redis, consoleChannel, logger] in
                await ConsoleClusterLink(console: hub.console, redis: redis, channel: consoleChannel, logger: logger)
                    .run()
            }
            for await action in linkActions.cancelOnGracefulShutdown() {
                switch action {
                case .startTimer(let timer, let delay):
                    group.addTask {
                        try? await Task.sleep(for: delay)
                        if !Task.isCancelled { self.feed(.timerFired(timer)) }
                    }
                case .readRosters(let channels, let removing):
                    group.addTask { await self.readRosters(channels, removing: removing, hub: hub) }
                default:
                    await perform(action, hub: hub, started: started)
                }
            }
            group.cancelAll()
        }
        for action in link.withLock({ $0.handle(.stopRequested) }) {
            await perform(action, hub: hub, started: started)
        }
        linkActionsContinuation.finish()
        repliesContinuation.finish()
        doorbell.finish()
    }

    /// Hands the bus' messages to the hub in batches, in the order they came.
    private func deliverInbound(to hub: PusherHub) async {
        for await _ in rings {
            let batch = inbound.messages.withLock { pending in
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            if !batch.isEmpty { await hub.clusterReceive(batch) }
        }
    }

    /// Hands Redis' answers to the hub, in the order they came.
    private func deliverReplies(to hub: PusherHub) async {
        for await reply in replies {
            switch reply {
            case .joined(let channel, let socketID, let answer):
                await hub.clusterJoined(channel: channel, socketID: socketID, answer: answer)
            case .signedIn(let socketID, let online):
                await hub.clusterSignedIn(socketID: socketID, online: online)
            }
        }
    }

    // MARK: The link

    /// Feeds the link one input. Redis commands it asks for go out at once (the registration with `snapshot`, in
    /// the hub's order of operations); the rest goes to the link's task in the machine's order (yielded under the
    /// lock, so two inputs on two threads cannot swap their announcements).
    func feed(_ input: ClusterLinkStateMachine.Input, snapshot: ClusterSnapshot? = nil) {
        let commands = link.withLock { machine in
            var commands: [ClusterLinkStateMachine.Action] = []
            for action in machine.handle(input) {
                switch action {
                case .sendHeartbeat, .register, .removeMembers: commands.append(action)
                default: linkActionsContinuation.yield(action)
                }
            }
            return commands
        }
        for command in commands {
            switch command {
            case .sendHeartbeat: beat()
            case .register(let attempt): if let snapshot { register(snapshot, attempt: attempt) }
            case .removeMembers(let node): removeDeadNode(node)
            default: break
            }
        }
    }

    /// Performs an action of the link that talks to the hub or waits for Redis.
    private func perform(
        _ action: ClusterLinkStateMachine.Action, hub: PusherHub,
        started: @Sendable () -> Void
    ) async {
        let node: Logger.Metadata = ["node_id": "\(configuration.nodeID)"]
        switch action {
        case .announceUp:
            logger.notice("Redis is up: presence and counts are the cluster's", metadata: node)
            await hub.clusterConnected()
        case .announceDown:
            logger.warning("Redis is away: serving this node's own subscribers alone; reconnecting", metadata: node)
            await hub.clusterDisconnected()
        case .reregister(let reason):
            if reason == .heartbeatExpired {
                logger.warning("this node's heartbeat had expired: registering its presence again", metadata: node)
            }
            await hub.clusterConnected()
        case .finishStart(let joined):
            if !joined {
                logger.warning(
                    "Redis is not reachable yet: serving alone until it is",
                    metadata: ["redis": "\(configuration.redisURL.redactedRedisURL)"])
            }
            started()
        case .unregister:
            _ = try? await redis.eval(
                RedisScripts.resync,
                arguments: [
                    .string(keyPrefix), .string(configuration.nodeID), "self", countEvents ? "1" : "0",
                    .string(Self.encode(ClusterSnapshot())),
                ])
            _ = try? await redis.delete([keyPrefix + "alive:" + configuration.nodeID])
            _ = try? await redis.setRemove(keyPrefix + "nodes", members: [configuration.nodeID])
        case .disconnect:
            await subscriber.close()
            await redis.close()
        case .sendHeartbeat, .register, .removeMembers, .startTimer, .readRosters:
            break  // performed where they are fed (see ``feed(_:snapshot:)`` and ``run(hub:started:)``)
        }
    }

    /// Registers this node's whole state in place of what the cluster knew of it (the hub's `resync`).
    func resync(_ snapshot: ClusterSnapshot) {
        feed(.registrationRequested(presenceChannels: Set(snapshot.presence.map(\.channel))), snapshot: snapshot)
    }

    private func register(_ snapshot: ClusterSnapshot, attempt: Int) {
        let arguments: [RedisCommand.Argument] = ["self", countEvents ? "1" : "0", .string(Self.encode(snapshot))]
        let subscriptions = snapshot.subscriptions.values.reduce(0, +)
        let presence = snapshot.presence.count
        script(RedisScripts.resync, arguments) { [weak self] reply in
            guard let self else { return }
            let node: Logger.Metadata = ["node_id": "\(self.configuration.nodeID)"]
            guard case .success(let value) = reply else {
                self.logger.warning(
                    "could not register this node's presence with the cluster: retrying",
                    metadata: node)
                self.feed(.registrationFailed(attempt: attempt))
                return
            }
            self.fireWebhooks(resyncReply: value)
            self.logger.info(
                "registered this node's presence with the cluster",
                metadata: node.merging([
                    "subscriptions": "\(subscriptions)", "presence_connections": "\(presence)",
                ]) { $1 })
            self.feed(.registrationSucceeded(attempt: attempt))
        }
    }

    /// Reads the cluster's members of `channels` and hands them to the hub, which tells its sockets what changed
    /// while this node was away (who joined; with `removing`, who left too).
    private func readRosters(_ channels: Set<String>, removing: Bool, hub: PusherHub) async {
        let names = Array(channels)
        let commands = names.map { RedisCommand("HGETALL", .string(keyPrefix + "pi:" + $0)) }
        guard let replies = try? await redis.send(commands), replies.count == names.count else { return }
        var rosters: [String: [ClusterMember]] = [:]
        for (name, reply) in zip(names, replies) { rosters[name] = Self.roster(reply) }
        await hub.clusterRosters(rosters, removing: removing)
    }

    /// Refreshes the heartbeat, and asks which nodes' heartbeats expired.
    private func beat() {
        let ttl = Int(configuration.nodeTimeout * 1000)
        script(RedisScripts.heartbeat, [.integer(ttl)]) { [weak self] reply in
            guard let self, case .success(let value) = reply, let parts = value.array, parts.count == 2,
                let dead = parts[1].array?.compactMap(\.string)
            else { return }
            self.feed(.heartbeatAnswered(wasAlive: parts[0].integer != 0, expiredNodes: dead))
        }
    }

    private func removeDeadNode(_ node: String) {
        let command = RedisCommand(
            "EVAL",
            arguments: [
                .string(RedisScripts.resync), 0, .string(keyPrefix), .string(node), "dead", countEvents ? "1" : "0",
                .string(Self.encode(ClusterSnapshot())),
            ])
        redis.send(command) { [weak self] result in
            guard let self, case .success(let value) = result else { return }
            if let message = value.errorMessage {
                self.logger.error(
                    "could not remove a dead node", metadata: ["dead_node": "\(node)", "error": "\(message)"])
                return
            }
            let removed = value.array.map { $0.count == 4 ? ($0[3].array?.count ?? 0) / 2 : 0 } ?? 0
            let vacated = value.array.map { $0.count == 4 ? ($0[1].array?.count ?? 0) : 0 } ?? 0
            guard value.array?.contains(where: { !($0.array?.isEmpty ?? true) }) == true else { return }
            self.nodesRemoved.add(1, ordering: .relaxed)
            self.logger.warning(
                "removed a dead node's connections (its heartbeat expired)",
                metadata: [
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
        for (channel, userID) in Self.pairs(parts[2]) {
            webhooks.enqueue(.memberAdded(channel: channel, userID: userID))
        }
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
        let presence = JSONValue.array(
            snapshot.presence.map {
                .array([
                    .string($0.channel), .string($0.socketID), .string($0.member.userID), .string($0.member.infoJSON),
                ])
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
