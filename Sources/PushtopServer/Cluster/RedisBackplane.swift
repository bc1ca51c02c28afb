import Logging
import NIOCore
import PusherProtocol
import PushtopRedis
import Synchronization

/// The backplane of a cluster: Redis pub/sub carries events between nodes, Lua scripts keep the presence
/// registry and counts (see `RedisScripts`), and heartbeat keys let the survivors remove a dead node.
///
/// Operations go out in the order the hub made them, each as one pipelined command on one connection (no task
/// per operation); replies that matter come back to the hub as calls, in the order Redis gave them
/// (``PusherHub/clusterJoined(channel:socketID:answer:)``). Messages of the bus are decoded on the subscriber's event
/// loop and handed to the hub in batches, in order. The rules of the link (when the node is up, registered,
/// retrying, or removing a dead peer) are a value's, `ClusterLinkStateMachine`; this class performs what it decides
/// (`RedisBackplane+Link.swift`).
public final class RedisBackplane: Backplane {
    let configuration: ClusterConfiguration
    let keyPrefix: String
    let bus: String
    /// The debug feed's channel (``ConsoleClusterLink``).
    let consoleChannel: String
    /// The hub's debug feed, for the console channel's messages (set when the backplane runs).
    let consoleBox: ConsoleBox
    let redis: RedisClient
    let subscriber: RedisSubscriber
    let logger: Logger
    let limits: PusherLimits
    let countEvents: Bool
    let app: AppCredentials
    let hubBox = Mutex<PusherHub?>(nil)
    /// The rules of the link; its actions are performed in the order it returned them (see ``feed(_:snapshot:)``).
    let link: Mutex<ClusterLinkStateMachine>
    /// The link's actions for its task (the hub's calls, timers, rosters), in the machine's order.
    let linkActions: AsyncStream<ClusterLinkStateMachine.Action>
    let linkActionsContinuation: AsyncStream<ClusterLinkStateMachine.Action>.Continuation
    let inbound = InboundQueue()
    /// Redis' answers for the hub, in order (see ``deliverReplies(to:)``).
    let replies: AsyncStream<ClusterReply>
    let repliesContinuation: AsyncStream<ClusterReply>.Continuation
    let doorbell: AsyncStream<Void>.Continuation
    let rings: AsyncStream<Void>
    /// Bus messages that could not be published (Redis away).
    let lostPublishes = Atomic<Int>(0)
    /// Dead nodes whose members this node removed.
    let nodesRemoved = Atomic<Int>(0)

    /// The debug feed that the console channel's messages go to, once the hub runs.
    final class ConsoleBox: Sendable {
        let console = Mutex<ConsoleHub?>(nil)
    }

    /// Bus messages decoded on the subscriber's loop, waiting for the hub.
    final class InboundQueue: Sendable {
        let messages = Mutex<[ClusterMessage]>([])
    }

    /// A backplane for `server`'s app through the Redis of `cluster`.
    /// - Throws: `RedisError.invalidURL` (PushtopRedis) for a bad URL.
    public init(cluster: ClusterConfiguration, server: ServerConfiguration, logger: Logger) throws(RedisError) {
        configuration = cluster
        let url = try RedisURL(cluster.redisURL)
        keyPrefix = "\(cluster.prefix):\(server.app.id):"
        bus = keyPrefix + "bus"
        let consoleChannel = keyPrefix + "console"
        self.consoleChannel = consoleChannel
        let consoleBox = ConsoleBox()
        self.consoleBox = consoleBox
        self.logger = logger
        limits = server.limits
        countEvents = server.subscriptionCountEvents
        app = server.app
        (rings, doorbell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (linkActions, linkActionsContinuation) = AsyncStream.makeStream(of: ClusterLinkStateMachine.Action.self)
        (replies, repliesContinuation) = AsyncStream.makeStream(of: ClusterReply.self)
        link = Mutex(ClusterLinkStateMachine(configuration: .init(cluster)))
        let timeout = Duration.milliseconds(Int64(max(500, min(3000, cluster.nodeTimeout * 250))))
        redis = RedisClient(
            configuration: RedisConfiguration(url: url, commandTimeout: timeout, name: "commands"), logger: logger)
        let inbound = self.inbound
        let doorbell = self.doorbell
        subscriber = RedisSubscriber(
            configuration: RedisConfiguration(url: url, commandTimeout: timeout, name: "subscriber"), logger: logger
        ) { message in
            if message.channel == consoleChannel {
                if let console = consoleBox.console.withLock({ $0 }) {
                    ConsoleClusterLink.receive(message.payload, into: console)
                }
                return
            }
            guard let decoded = ClusterMessage(decoding: String(buffer: message.payload)) else { return }
            inbound.messages.withLock { $0.append(decoded) }
            doorbell.yield()
        }
    }

    public var isClustered: Bool { true }
    public var nodeID: String? { configuration.nodeID }

    public var health: ClusterHealth { link.withLock { $0.health } }

    /// Bus messages not published because Redis was away, and dead nodes removed by this node.
    public var counters: (lostPublishes: Int, nodesRemoved: Int) {
        (lostPublishes.load(ordering: .relaxed), nodesRemoved.load(ordering: .relaxed))
    }

    var hub: PusherHub? { hubBox.withLock { $0 } }

    // MARK: Operations

    public func send(_ operation: ClusterOperation) {
        switch operation {
        case .publish(let requests):
            for request in requests {
                publish(
                    .event(
                        origin: configuration.nodeID, channels: request.channels, name: request.name,
                        data: request.data, excludedSocketID: request.excludedSocketID, userID: nil))
            }
        case .clientEvent(let channel, let name, let data, let userID, let socketID):
            publish(
                .event(
                    origin: configuration.nodeID, channels: [channel], name: name, data: data,
                    excludedSocketID: socketID, userID: userID))
        case .terminate(let userID):
            publish(.terminate(userID: userID))
        case .subscribed(let channel, let socketID, nil):
            subscribed(channel: channel, socketID: socketID)
        case .subscribed(let channel, let socketID, let member?):
            join(channel: channel, socketID: socketID, member: member)
        case .left(let channel, let socketID, let presence):
            left(channel: channel, socketID: socketID, presence: presence)
        case .signedIn(let userID, let socketID, let watchlist):
            script(RedisScripts.signIn, [.string(socketID), .string(userID)] + watchlist.map { .string($0) }) {
                [weak self] reply in
                guard case .success(let value) = reply, let online = value.array?.compactMap(\.string),
                    !online.isEmpty
                else { return }
                self?.repliesContinuation.yield(.signedIn(socketID: socketID, online: online))
            }
        case .signedOut(_, let socketID):
            script(RedisScripts.signOut, [.string(socketID)]) { _ in }
        case .resync(let snapshot):
            resync(snapshot)
        }
    }

    /// A subscription to a channel without presence: the cluster's count; the first one reports the channel occupied.
    private func subscribed(channel: String, socketID: String) {
        script(RedisScripts.subscribe, [.string(channel), countEvents ? "1" : "0"]) { [weak self] reply in
            guard case .success(let value) = reply, let count = value.integer, let hub = self?.hub else { return }
            if count == 1 { hub.consoleChannel(.occupied, channel: channel) }
            guard let webhooks = hub.webhooks else { return }
            if count == 1 { webhooks.enqueue(.channelOccupied(channel: channel)) }
            // The node whose script changed the count reports it: one subscription_count per change.
            if webhooks.wantsSubscriptionCounts {
                webhooks.enqueue(.subscriptionCount(channel: channel, count: Int(count)))
            }
            _ = socketID
        }
    }

    /// A subscription gone: the cluster's count and presence; the last one reports the channel vacated.
    private func left(channel: String, socketID: String, presence: Bool) {
        let arguments: [RedisCommand.Argument] = [
            .string(channel), .string(socketID), presence ? "1" : "0", countEvents ? "1" : "0",
        ]
        script(RedisScripts.leave, arguments) { [weak self] reply in
            guard case .success(let value) = reply, let parts = value.array, parts.count == 2,
                let count = parts[0].integer, count >= 0, let hub = self?.hub
            else { return }
            if let removed = parts[1].string, !removed.isEmpty {
                hub.consolePresence("member_removed", channel: channel, userID: removed, socketID: socketID)
            }
            if count == 0 { hub.consoleChannel(.vacated, channel: channel) }
            guard let webhooks = hub.webhooks else { return }
            if let removed = parts[1].string, !removed.isEmpty {
                webhooks.enqueue(.memberRemoved(channel: channel, userID: removed))
            }
            if count == 0 { webhooks.enqueue(.channelVacated(channel: channel)) }
            if count > 0, !presence, webhooks.wantsSubscriptionCounts {
                webhooks.enqueue(.subscriptionCount(channel: channel, count: Int(count)))
            }
        }
    }

    private func join(channel: String, socketID: String, member: ClusterMember) {
        let arguments: [RedisCommand.Argument] = [
            .string(channel), .string(socketID), .string(member.userID), .string(member.infoJSON),
            .integer(limits.maxPresenceMembers),
        ]
        script(RedisScripts.join, arguments) { [weak self] reply in
            guard let self, let hub = self.hub else { return }
            let answer: ClusterJoinAnswer
            switch reply {
            case .success(let value):
                guard let parts = value.array, parts.count == 3, let status = parts[0].string else {
                    self.logger.warning("unexpected reply to a presence join", metadata: ["reply": "\(value)"])
                    answer = .unavailable
                    break
                }
                if status == "full" {
                    answer = .full
                    break
                }
                if status == "new" {
                    hub.webhooks?.enqueue(.memberAdded(channel: channel, userID: member.userID))
                    hub.consolePresence(
                        "member_added", channel: channel, userID: member.userID,
                        info: JSONValue.parseIfJSON(member.infoJSON), socketID: socketID)
                }
                if parts[1].integer == 1 {
                    hub.webhooks?.enqueue(.channelOccupied(channel: channel))
                    hub.consoleChannel(.occupied, channel: channel)
                }
                answer = .joined(roster: Self.roster(parts[2]))
            case .failure:
                answer = .unavailable
            }
            self.repliesContinuation.yield(.joined(channel: channel, socketID: socketID, answer: answer))
        }
    }

    /// `HGETALL` of a channel's `user_info`s as members.
    static func roster(_ value: RESPValue) -> [ClusterMember] {
        let flat = value.array ?? []
        var members: [ClusterMember] = []
        var index = 0
        while index + 1 < flat.count {
            if let userID = flat[index].string {
                var member = ClusterMember(userID: userID, info: nil)
                member.infoJSON = flat[index + 1].string ?? ""
                members.append(member)
            }
            index += 2
        }
        return members
    }

    /// Publishes a message on the bus (lost, and counted, when Redis is away).
    func publish(_ message: ClusterMessage) {
        let command = RedisCommand("PUBLISH", .string(bus), .string(message.encoded))
        redis.send(command) { [weak self] result in
            if case .failure = result { self?.lostPublishes.add(1, ordering: .relaxed) }
        }
    }

    /// Runs a script with ARGV `K, node, arguments...`; `onReply` gets its reply on the connection's loop.
    func script(
        _ source: String, _ arguments: [RedisCommand.Argument],
        onReply: @escaping @Sendable (Result<RESPValue, RedisError>) -> Void
    ) {
        let command = RedisCommand(
            "EVAL", arguments: [.string(source), 0, .string(keyPrefix), .string(configuration.nodeID)] + arguments)
        redis.send(command) { [logger] result in
            if case .success(let value) = result, let message = value.errorMessage {
                logger.error("a cluster script failed", metadata: ["error": "\(message)"])
                onReply(.failure(.server(command: "EVAL", message: message)))
                return
            }
            onReply(result)
        }
    }
}
