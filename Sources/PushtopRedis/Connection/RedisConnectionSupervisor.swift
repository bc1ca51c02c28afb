import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Keeps one Redis connection open for its owner (a ``RedisClient`` or a ``RedisSubscriber``): connects, signs
/// in and selects the database (then the owner's own set-up, such as restoring subscriptions), reports each
/// state change, and after any loss reconnects with capped exponential back-off, for as long as it is not
/// closed.
final class RedisConnectionSupervisor: Sendable {
    /// The owner's set-up on a new connection after `AUTH`/`SELECT`, before it is reported up.
    typealias SetUp = @Sendable (any Channel) async throws -> Void

    private struct State {
        var connection: RedisConnectionState = .connecting(attempt: 1)
        var channel: (any Channel)?
        var observers: [Int: AsyncStream<RedisConnectionState>.Continuation] = [:]
        var callbacks: [@Sendable (RedisConnectionState) -> Void] = []
        var nextObserver = 0
        var closed = false
        var task: Task<Void, Never>?
        var reportedDown = false
    }

    let configuration: RedisConfiguration
    let logger: Logger
    /// The loops its connections run on.
    let group: any EventLoopGroup
    private let onPush: (@Sendable (RedisPubSubMessage) -> Void)?
    private let setUp: SetUp?
    private let box = Mutex(State())

    init(
        configuration: RedisConfiguration, group: any EventLoopGroup, logger: Logger,
        onPush: (@Sendable (RedisPubSubMessage) -> Void)? = nil, setUp: SetUp? = nil
    ) {
        var logger = logger
        logger[metadataKey: "redis.url"] = "\(configuration.url)"
        logger[metadataKey: "redis.connection"] = "\(configuration.name)"
        self.configuration = configuration
        self.logger = logger
        self.group = group
        self.onPush = onPush
        self.setUp = setUp
    }

    /// Starts connecting (once).
    func start() {
        box.withLock { state in
            guard state.task == nil, !state.closed else { return }
            state.task = Task { await self.run() }
        }
    }

    /// The state now.
    var state: RedisConnectionState { box.withLock { $0.connection } }

    /// The channel, only while up.
    var channel: (any Channel)? { box.withLock { $0.channel } }

    /// The state now, then every change, until closed.
    func stateChanges() -> AsyncStream<RedisConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: RedisConnectionState.self, bufferingPolicy: .unbounded)
        let id: Int? = box.withLock { state in
            continuation.yield(state.connection)
            guard !state.closed else { return nil }
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.box.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `body` with every change (not the state now), on whatever thread the change happens.
    func onStateChange(_ body: @escaping @Sendable (RedisConnectionState) -> Void) {
        box.withLock { $0.callbacks.append(body) }
    }

    /// Waits until the state is ``RedisConnectionState/up``.
    func waitUntilUp(timeout: Duration) async throws {
        if state.isUp { return }
        let changes = stateChanges()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await change in changes {
                    if change.isUp { return }
                    if change == .closed { throw RedisError.closed }
                }
                throw RedisError.closed
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw RedisError.notConnected("not up within \(timeout.formattedSeconds): \(self.state)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Stops reconnecting, closes the connection, reports ``RedisConnectionState/closed`` and ends the streams.
    func close() async {
        let (task, channel) = box.withLock { state -> (Task<Void, Never>?, (any Channel)?) in
            state.closed = true
            defer { state.channel = nil }
            return (state.task, state.channel)
        }
        task?.cancel()
        try? await channel?.close()
        await task?.value
        report(.closed)
        let observers = box.withLock { state in
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }

    // MARK: - The connection loop

    private var isClosed: Bool { box.withLock { $0.closed } }

    private func run() async {
        var failures = 0
        while !isClosed {
            report(.connecting(attempt: failures + 1))
            let reason: String
            do {
                let (channel, closedReason) = try await connect()
                do {
                    try await signIn(channel)
                    try await setUp?(channel)
                } catch {
                    try? await channel.close()
                    throw error
                }
                let stillOpen = box.withLock { state -> Bool in
                    guard !state.closed, channel.isActive else { return false }
                    state.channel = channel
                    return true
                }
                guard stillOpen else {
                    try? await channel.close()
                    if isClosed { break }
                    throw RedisError.connectionLost("closed during set-up")
                }
                failures = 0
                report(.up)
                reason = (try? await closedReason.get()) ?? "connection closed"
                box.withLock { $0.channel = nil }
            } catch {
                reason = (error as? RedisError)?.description ?? "\(error)"
            }
            if isClosed { break }
            failures += 1
            let delay = configuration.backoff.delay(retry: failures)
            report(.down(reason: reason, attempt: failures + 1, retryIn: delay))
            do { try await Task.sleep(for: delay) } catch { break }
        }
    }

    /// Opens a TCP connection with the RESP pipeline; returns it and the future of the reason it will close.
    private func connect() async throws -> (any Channel, EventLoopFuture<String>) {
        let loop = group.next()
        let closed = loop.makePromise(of: String.self)
        let configuration = configuration
        let onPush = onPush
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                do {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(RESPMessageDecoder(decoder: RESPDecoder(limits: configuration.limits))))
                    try channel.pipeline.syncOperations.addHandler(
                        RedisConnectionHandler(
                            commandTimeout: configuration.commandTimeout,
                            healthCheckInterval: configuration.healthCheckInterval, closed: closed, onPush: onPush))
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
        do {
            let channel = try await bootstrap.connect(host: configuration.url.host, port: configuration.url.port).get()
            return (channel, closed.futureResult)
        } catch {
            closed.succeed("not connected")
            throw RedisError.notConnected(
                "cannot connect to \(configuration.url.host):\(configuration.url.port): \(error)")
        }
    }

    /// `AUTH` and `SELECT`, as the URL asks, and a `PING`: a connection counts as up only once Redis answered
    /// on it (a proxy or balancer in front of a Redis that is away accepts the TCP connection all the same).
    private func signIn(_ channel: any Channel) async throws {
        let url = configuration.url
        if let password = url.password {
            let auth =
                url.username.map { RedisCommand("AUTH", .string($0), .string(password)) }
                ?? RedisCommand("AUTH", .string(password))
            let reply = try await Self.send(auth, on: channel)
            if let message = reply.errorMessage { throw RedisError.handshake(message) }
        }
        if url.database != 0 {
            let reply = try await Self.send(RedisCommand("SELECT", .integer(url.database)), on: channel)
            if let message = reply.errorMessage { throw RedisError.handshake("SELECT \(url.database): \(message)") }
        }
        let pong = try await Self.send(RedisCommand("PING"), on: channel)
        if let message = pong.errorMessage { throw RedisError.handshake("PING: \(message)") }
    }

    /// Sends one command on `channel` and waits for its reply (an error reply is returned, not thrown).
    static func send(_ command: RedisCommand, on channel: any Channel, replies: Int = 1) async throws -> RESPValue {
        let promise = channel.eventLoop.makePromise(of: RESPValue.self)
        let request = RedisRequest(command, promise: promise, replies: replies)
        channel.writeAndFlush(request).whenFailure { error in
            request.fail(.notConnected("\(error)"))
        }
        return try await promise.futureResult.get()
    }

    // MARK: - Reporting

    private func report(_ new: RedisConnectionState) {
        let (observers, callbacks, changed, firstDown) = box.withLock { state in
            let changed = state.connection != new
            state.connection = new
            var firstDown = false
            switch new {
            case .down: firstDown = !state.reportedDown; state.reportedDown = true
            case .up: state.reportedDown = false
            default: break
            }
            return (Array(state.observers.values), state.callbacks, changed, firstDown)
        }
        guard changed else { return }
        switch new {
        case .up: logger.info("redis: up")
        case .down(let reason, let attempt, let retryIn):
            let message: Logger.Message = "redis: down (\(reason)); retrying in \(retryIn.formattedSeconds)"
            if firstDown {
                logger.warning(message)
            } else {
                logger.debug(message, metadata: ["redis.attempt": "\(attempt)"])
            }
        case .connecting(let attempt): logger.debug("redis: connecting", metadata: ["redis.attempt": "\(attempt)"])
        case .closed: logger.debug("redis: closed")
        }
        for observer in observers { observer.yield(new) }
        for callback in callbacks { callback(new) }
    }
}
