import Logging
import PusherProtocol

/// The heart of the embedded server: one actor owning the app's connections, channels and presence rosters.
///
/// WebSockets reach it through one ordered queue drained by its `run()` task; in-process clients (the simulator,
/// library users, tests) attach with ``open(appKey:protocolVersion:)`` and feed what they send to
/// ``receive(_:from:)``; publishers (the HTTP API, the simulator, library users) call ``publish(_:)``. Every rule
/// of the protocol lives here, so it can be exercised with or without a network.
///
/// - Important: The hub never waits for a socket. Frames for WebSockets are queued during a turn and written at
///   its end, one `execute` per event loop (an event is encoded once and the same bytes go to every subscriber).
///   A socket whose unsent bytes pass ``PusherLimits/maxPendingOutboundBytes`` is closed with 4100 (counted in
///   ``slowConsumerDisconnects``); an in-process stream more than ``PusherLimits/maxQueuedFrames`` behind ends.
public actor PusherHub {
    /// The protocol versions accepted in the `protocol` query parameter (pysher and libPusher send 6).
    public static let supportedProtocolVersions: Set<Int> = [5, 6, 7]

    let app: AppCredentials
    /// The app's quotas and size limits (a reload of the apps file may change them: ``apply(limits:enabled:)``).
    var limits: PusherLimits
    let activityTimeout: Duration
    let pongTimeout: Duration
    let activityTimeoutSeconds: Int
    let subscriptionCountEvents: Bool
    let logger: Logger
    /// Pusher's rules for subscriptions (the hub applies its decisions).
    var admission: SubscriptionAdmission
    /// Whether the app is enabled: when `false` new connections are refused with 4003 (Pusher's "app disabled").
    public private(set) var isEnabled = true
    /// Where WebSockets' events arrive, in order.
    nonisolated let inbox = HubInbox()

    var connections: [ConnectionID: ConnectionRecord] = [:]
    var connectionsBySocketID: [String: ConnectionID] = [:]
    var channels: [String: ChannelRecord] = [:]
    var cache: [String: CachedEvent] = [:]
    var isShutDown = false
    /// Signed-in users and watchlists.
    var users = UserDirectory()
    /// Posts webhooks when URLs are configured.
    public nonisolated let webhooks: WebhookDispatcher?
    /// Frames for WebSockets queued during this turn; ``endTurn()`` sends them.
    var pending = PendingDeliveries()

    /// Connections closed with 4100 because they did not read fast enough.
    public private(set) var slowConsumerDisconnects = 0
    /// What `GET /metrics` reports (read through ``statistics``).
    var stats = HubStats()
    /// Busy channels whose `subscription_count` changed since the last sweep (see ``announceSubscriptionCount(_:)``).
    var pendingSubscriptionCounts: Set<String> = []
    /// What carries events, presence and counts to the other nodes (``LocalBackplane`` for a single node).
    public nonisolated let backplane: any Backplane
    /// Whether presence and counts are the cluster's right now (clustered and Redis reachable); when `false` the
    /// hub decides alone, as a single node does.
    var clusterShared = false
    /// The cluster's subscription count of busy channels, for the next sweep (see ``flushSubscriptionCounts()``).
    var clusterCounts: [String: Int] = [:]
    /// The app's debug feed on this node (`GET /apps/{id}/console`): rows are built only while someone listens.
    nonisolated let console: ConsoleHub

    /// How long a cache channel remembers its last event (Pusher: 30 minutes).
    static let cacheTTL: Duration = .seconds(30 * 60)

    /// A hub for the app, limits and timeouts of `configuration`, with a ``WebhookDispatcher`` when it names
    /// webhook URLs. Logs to `logger`.
    public init(
        configuration: ServerConfiguration, backplane: any Backplane = LocalBackplane(),
        logger: Logger = Logger(label: "pushtop.server")
    ) {
        self.backplane = backplane
        app = configuration.app
        limits = configuration.limits
        admission = SubscriptionAdmission(app: configuration.app, limits: configuration.limits)
        activityTimeoutSeconds = max(1, Int(configuration.activityTimeout.rounded()))
        activityTimeout = .milliseconds(Int64(configuration.activityTimeout * 1000))
        pongTimeout = .milliseconds(Int64(configuration.pongTimeout * 1000))
        subscriptionCountEvents = configuration.subscriptionCountEvents
        self.logger = logger
        let console = ConsoleHub(
            appID: configuration.app.id, nodeID: backplane.nodeID ?? ConsoleHub.standaloneNodeID,
            clustered: backplane.isClustered)
        self.console = console
        webhooks =
            configuration.webhooks.urls.isEmpty
            ? nil
            : WebhookDispatcher(
                configuration: configuration.webhooks, app: configuration.app, logger: logger, console: console)
    }

    /// The number of open connections.
    public var connectionCount: Int { connections.count }

    /// Whether ``shutdown(code:reason:)`` was called (new connections are refused).
    public var isShuttingDown: Bool { isShutDown }

    // MARK: Connections

    /// Attaches an in-process client, as if it had asked for `/app/{appKey}?protocol=N`.
    ///
    /// An unknown key or protocol version is refused Pusher's way: the stream holds `pusher:error` and then a
    /// close with the code (4001 unknown app, 4006 malformed version, 4007 unsupported version, 4008 missing).
    public func open(appKey: String, protocolVersion: String?) -> HubConnection {
        let id = inbox.nextConnectionID()
        let (stream, outbox) = AsyncStream.makeStream(
            of: OutboundFrame.self, bufferingPolicy: .bufferingOldest(limits.maxQueuedFrames))
        let socketID = attach(
            id, outlet: .stream(outbox), appKey: appKey, protocolVersion: protocolVersion, info: .inProcess)
        if socketID == nil { outbox.finish() }
        endTurn()
        return HubConnection(id: id, socketID: socketID, frames: stream)
    }

    /// Registers a connection and greets it with `pusher:connection_established`, or refuses it (an error frame
    /// and a close). Returns its `socket_id`, `nil` when refused.
    func attach(
        _ id: ConnectionID, outlet: ConnectionOutlet, appKey: String, protocolVersion: String?,
        info: ConsoleConnectionInfo
    ) -> String? {
        if let (code, message) = refusal(appKey: appKey, protocolVersion: protocolVersion) {
            logger.info("refused connection", metadata: ["code": "\(code)", "reason": "\(message)"])
            consoleRefusedConnection(code: code, reason: message, info: info)
            deliver(ServerFrame.error(code: code, message: message), via: outlet, to: id)
            deliver(.close(code: code, reason: message), via: outlet, to: id)
            return nil
        }
        let socketID = makeSocketID()
        let now = ContinuousClock.now
        stats.connectionsOpened += 1
        connections[id] = ConnectionRecord(
            socketID: socketID, outbox: outlet, lastActivity: now, openedAt: now,
            clientEvents: TokenBucket(perSecond: limits.clientEventsPerSecond, now: now))
        connectionsBySocketID[socketID] = id
        deliver(
            ServerFrame.connectionEstablished(socketID: socketID, activityTimeout: activityTimeoutSeconds), via: outlet,
            to: id)
        logger.debug("connection established", metadata: ["socket_id": "\(socketID)"])
        consoleConnection(socketID: socketID, protocolVersion: protocolVersion, info: info)
        return socketID
    }

    private func refusal(appKey: String, protocolVersion: String?) -> (Int, String)? {
        if isShutDown { return (4200, "Server is shutting down") }
        if appKey != app.key { return (4001, "App key \(ErrorText.excerpt(appKey)) does not exist on this server") }
        if !isEnabled { return (4003, "App is disabled") }
        if let quota = limits.maxConnections, connections.count >= quota {
            return (4004, "App is over connection quota (\(quota))")
        }
        guard let protocolVersion, !protocolVersion.isEmpty else {
            return (4008, "No protocol version supplied")
        }
        guard let version = Int(protocolVersion) else {
            return (4006, "Invalid version string format: \(ErrorText.excerpt(protocolVersion))")
        }
        guard Self.supportedProtocolVersions.contains(version) else {
            return (4007, "Unsupported protocol version: \(version) (supported: 5, 6, 7)")
        }
        return nil
    }

    private func makeSocketID() -> String {
        while true {
            let candidate = "\(UInt32.random(in: 1...UInt32.max)).\(UInt32.random(in: 1...UInt32.max))"
            if connectionsBySocketID[candidate] == nil { return candidate }
        }
    }

    /// Forgets a connection whose peer went away: it leaves its channels (members are removed when their last
    /// connection leaves) and an in-process stream ends.
    public func disconnect(_ id: ConnectionID) {
        consoleDisconnection(id, by: .client, code: nil, reason: nil)
        forget(id)
        endTurn()
    }

    /// Removes a connection from every channel and index; nothing of it is kept.
    func forget(_ id: ConnectionID) {
        guard let record = connections[id] else { return }
        for channel in record.channels {
            leave(channel: channel, connection: id)
        }
        signOut(id)
        connections[id] = nil
        connectionsBySocketID[record.socketID] = nil
        if case .stream(let continuation) = record.outbox { continuation.finish() }
    }

    /// Queues a frame for one connection; it leaves when the turn ends (``endTurn()``).
    func send(_ frame: OutboundFrame, to id: ConnectionID) {
        guard let outbox = connections[id]?.outbox else { return }
        deliver(frame, via: outbox, to: id)
    }

    /// Queues a frame through an outlet, noting an in-process client that cannot keep up.
    func deliver(_ frame: OutboundFrame, via outbox: ConnectionOutlet, to id: ConnectionID) {
        stats.messagesOut += 1
        switch outbox {
        case .socket(let socket):
            pending.add(frame, to: socket)
        case .stream(let continuation):
            if case .dropped = continuation.yield(frame) {
                logger.warning("dropping a connection that fell too far behind", metadata: ["connection": "\(id)"])
                overflowed.append(id)
                stats.slowConsumerCloses += 1
            }
        }
    }

    /// In-process connections found too slow during a fan-out; dropped once the fan-out is done.
    var overflowed: [ConnectionID] = []

    /// Ends a turn of the hub: drops the in-process connections found too slow, then writes every queued frame
    /// to its socket (one `execute` per event loop). Every entry point calls it last.
    func endTurn() {
        while let id = overflowed.popLast() {
            consoleDisconnection(id, by: .slowConsumer, code: nil, reason: "Fell too far behind")
            forget(id)
        }
        pending.send()
    }

    /// Closes a connection with a code (a close frame, then nothing more).
    func close(_ id: ConnectionID, code: Int, reason: String) {
        guard let record = connections[id] else { return }
        consoleDisconnection(id, by: Self.closedBy(code: code, shuttingDown: isShutDown), code: code, reason: reason)
        deliver(.close(code: code, reason: reason), via: record.outbox, to: id)
        forget(id)
    }

    /// Applies an app's new limits and enabled state (a reload of the apps file): open connections stay; a
    /// disabled app refuses new connections with 4003 and closes the open ones with 4003.
    public func apply(limits: PusherLimits, enabled: Bool) {
        self.limits = limits
        admission = SubscriptionAdmission(app: app, limits: limits)
        isEnabled = enabled
        if !enabled {
            for id in Array(connections.keys) { close(id, code: 4003, reason: "App is disabled") }
        }
        endTurn()
    }

    // MARK: Sockets

    /// Drains the queue of WebSocket events until the server stops (``HubInboxService``).
    func run() async {
        for await event in inbox.events {
            handle(event)
        }
    }

    func handle(_ event: SocketEvent) {
        switch event {
        case .opened(let id, let outlet, let appKey, let protocolVersion, let info):
            _ = attach(id, outlet: .socket(outlet), appKey: appKey, protocolVersion: protocolVersion, info: info)
        case .received(let id, let messages):
            for message in messages {
                switch message {
                case .text(let text): handleMessage(text, from: id)
                case .binary(let size): handleBinary(size: size, from: id)
                }
            }
        case .overCapacity(let id, let pendingBytes):
            slowConsumerDisconnects += 1
            stats.slowConsumerCloses += 1
            logger.warning(
                "closed a slow consumer with 4100",
                metadata: [
                    "socket_id": "\(connections[id]?.socketID ?? "?")", "unsent_bytes": "\(pendingBytes)",
                    "high_water_mark": "\(limits.maxPendingOutboundBytes)",
                ])
            consoleDisconnection(
                id, by: .slowConsumer, code: 4100, reason: "Over capacity: the connection fell too far behind")
            forget(id)
        case .closed(let id, let code):
            consoleDisconnection(id, by: .client, code: code, reason: nil)
            forget(id)
        case .published(let batch):
            publishChecked(batch)
        case .barrier(let barrier):
            barrier.pass()
        }
        endTurn()
    }

    // MARK: Liveness

    /// Pings connections that have been silent for the activity timeout, and closes with 4201 those that did
    /// not answer within the pong timeout. The server calls this about once a second.
    public func sweep(now: ContinuousClock.Instant = .now) {
        var silent: [ConnectionID] = []
        for (id, record) in connections {
            if let pingSentAt = record.pingSentAt {
                if now - pingSentAt >= pongTimeout { silent.append(id) }
            } else if now - record.lastActivity >= activityTimeout {
                connections[id]?.pingSentAt = now
                deliver(ServerFrame.ping, via: record.outbox, to: id)
            }
        }
        for id in silent {
            logger.info("closing a silent connection", metadata: ["connection": "\(id)"])
            close(id, code: 4201, reason: "Pong reply not received")
        }
        flushSubscriptionCounts()
        endTurn()
        let expired = cache.filter { now - $0.value.at >= Self.cacheTTL }.map(\.key)
        for name in expired { cache[name] = nil }
    }

    /// Closes every connection with `code` (a close frame each) and refuses new ones.
    public func shutdown(code: Int = 1001, reason: String = "Server shutting down") {
        isShutDown = true
        for id in Array(connections.keys) {
            close(id, code: code, reason: reason)
        }
        // In a cluster the last webhooks (channels vacated by this shutdown) are decided by Redis' replies: the
        // server finishes the dispatcher once the backplane stopped.
        if !backplane.isClustered { webhooks?.finish() }
        endTurn()
        console.finishAll()
    }
}
