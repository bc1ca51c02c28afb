import Logging
import PusherProtocol

/// The heart of the embedded server: one actor owning the app's connections, channels and presence rosters.
///
/// Sockets attach with ``open(appKey:protocolVersion:)`` and feed what they receive to ``receive(_:from:)``;
/// publishers (the HTTP API, the simulator, library users) call ``publish(_:)``. Every rule of the protocol
/// lives here, so it can be exercised with or without a network.
///
/// - Important: Frames leave through each connection's bounded ``HubConnection/frames`` stream; the hub never
///   waits for a socket. A connection that falls more than ``PusherLimits/maxQueuedFrames`` behind is dropped.
public actor PusherHub {
    /// The protocol versions accepted in the `protocol` query parameter (pysher and libPusher send 6).
    public static let supportedProtocolVersions: Set<Int> = [5, 6, 7]

    let app: AppCredentials
    let limits: PusherLimits
    let activityTimeout: Duration
    let pongTimeout: Duration
    let activityTimeoutSeconds: Int
    let subscriptionCountEvents: Bool
    let logger: Logger

    var connections: [ConnectionID: ConnectionRecord] = [:]
    var connectionsBySocketID: [String: ConnectionID] = [:]
    var channels: [String: ChannelRecord] = [:]
    var cache: [String: CachedEvent] = [:]
    var nextConnectionID = 0
    var isShutDown = false
    /// What `GET /metrics` reports (read through ``statistics``).
    var stats = HubStats()

    /// How long a cache channel remembers its last event (Pusher: 30 minutes).
    static let cacheTTL: Duration = .seconds(30 * 60)

    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "pushtop.server")) {
        app = configuration.app
        limits = configuration.limits
        activityTimeoutSeconds = max(1, Int(configuration.activityTimeout.rounded()))
        activityTimeout = .milliseconds(Int64(configuration.activityTimeout * 1000))
        pongTimeout = .milliseconds(Int64(configuration.pongTimeout * 1000))
        subscriptionCountEvents = configuration.subscriptionCountEvents
        self.logger = logger
    }

    /// The number of open connections.
    public var connectionCount: Int { connections.count }

    // MARK: Connections

    /// Attaches a client that asked for `/app/{appKey}?protocol=N`.
    ///
    /// An unknown key or protocol version is refused Pusher's way: the stream holds `pusher:error` and then a
    /// close with the code (4001 unknown app, 4006 malformed version, 4007 unsupported version, 4008 missing).
    public func open(appKey: String, protocolVersion: String?) -> HubConnection {
        nextConnectionID += 1
        let id = ConnectionID(rawValue: nextConnectionID)
        let (stream, outbox) = AsyncStream.makeStream(
            of: OutboundFrame.self, bufferingPolicy: .bufferingOldest(limits.maxQueuedFrames))

        if let (code, message) = refusal(appKey: appKey, protocolVersion: protocolVersion) {
            logger.info("refused connection", metadata: ["code": "\(code)", "reason": "\(message)"])
            outbox.yield(ServerFrame.error(code: code, message: message))
            outbox.yield(.close(code: code, reason: message))
            outbox.finish()
            return HubConnection(id: id, socketID: nil, frames: stream)
        }

        let socketID = makeSocketID()
        let now = ContinuousClock.now
        connections[id] = ConnectionRecord(
            socketID: socketID, outbox: outbox, lastActivity: now,
            clientEvents: TokenBucket(perSecond: limits.clientEventsPerSecond, now: now))
        connectionsBySocketID[socketID] = id
        outbox.yield(ServerFrame.connectionEstablished(socketID: socketID, activityTimeout: activityTimeoutSeconds))
        logger.debug("connection established", metadata: ["socket_id": "\(socketID)"])
        return HubConnection(id: id, socketID: socketID, frames: stream)
    }

    private func refusal(appKey: String, protocolVersion: String?) -> (Int, String)? {
        if isShutDown { return (4200, "Server is shutting down") }
        if appKey != app.key { return (4001, "App key \(appKey) does not exist on this server") }
        guard let protocolVersion, !protocolVersion.isEmpty else {
            return (4008, "No protocol version supplied")
        }
        guard let version = Int(protocolVersion) else {
            return (4006, "Invalid version string format: \(protocolVersion)")
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
    /// connection leaves) and its stream ends.
    public func disconnect(_ id: ConnectionID) {
        guard let record = connections[id] else { return }
        for channel in record.channels {
            leave(channel: channel, connection: id)
        }
        connections[id] = nil
        connectionsBySocketID[record.socketID] = nil
        record.outbox.finish()
    }

    /// Sends a frame to one connection; drops the connection when it is too far behind.
    func send(_ frame: OutboundFrame, to id: ConnectionID) {
        guard let outbox = connections[id]?.outbox else { return }
        deliver(frame, via: outbox, to: id)
    }

    /// Sends a frame through an outbox, noting a connection that cannot keep up.
    func deliver(_ frame: OutboundFrame, via outbox: AsyncStream<OutboundFrame>.Continuation, to id: ConnectionID) {
        if case .dropped = outbox.yield(frame) {
            logger.warning("dropping a connection that fell too far behind", metadata: ["connection": "\(id)"])
            overflowed.append(id)
            stats.slowConsumerCloses += 1
        } else {
            stats.messagesOut += 1
        }
    }

    /// Connections found too slow during a fan-out; dropped once the fan-out is done.
    var overflowed: [ConnectionID] = []

    func dropOverflowed() {
        while let id = overflowed.popLast() {
            disconnect(id)
        }
    }

    /// Closes a connection with a code (the stream ends after the close frame).
    func close(_ id: ConnectionID, code: Int, reason: String) {
        guard let record = connections[id] else { return }
        record.outbox.yield(.close(code: code, reason: reason))
        disconnect(id)
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
        dropOverflowed()
        let expired = cache.filter { now - $0.value.at >= Self.cacheTTL }.map(\.key)
        for name in expired { cache[name] = nil }
    }

    /// Closes every connection with `code` (a close frame each) and refuses new ones.
    public func shutdown(code: Int = 1001, reason: String = "Server shutting down") {
        isShutDown = true
        for id in Array(connections.keys) {
            close(id, code: code, reason: reason)
        }
    }
}
