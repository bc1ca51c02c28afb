import Logging
import NIOCore
import NIOPosix

/// A connection to Redis for commands: pipelined, reconnecting, reporting its state.
///
/// ```swift
/// let redis = RedisClient(configuration: RedisConfiguration(url: try RedisURL("redis://127.0.0.1:6379")),
///                         logger: logger)
/// try await redis.waitUntilUp(timeout: .seconds(5))
/// try await redis.set("k", to: "v", expiration: .milliseconds(30_000))
/// ```
///
/// It connects as soon as it is made and stays connected until ``close()``: after a loss it reconnects with
/// capped exponential back-off (``RedisBackoff``), signing in and selecting the database again. Every
/// `send(_:)` writes at once; many may be in flight, and replies are matched in order.
///
/// - Important: While the connection is not up, commands fail at once with ``RedisError/notConnected(_:)``
///   instead of waiting: a cluster node must keep serving its own sockets while Redis is away. Commands in
///   flight when the connection is lost fail with ``RedisError/connectionLost(_:)`` (they may or may not have
///   run). Watch ``stateChanges()`` to resynchronise after a return.
public final class RedisClient: RedisConnectionOwner {
    let supervisor: RedisConnectionSupervisor

    /// A client for `configuration`; it starts connecting at once, on a loop of `eventLoopGroup`.
    public init(
        configuration: RedisConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger
    ) {
        supervisor = RedisConnectionSupervisor(configuration: configuration, group: eventLoopGroup, logger: logger)
        supervisor.start()
    }

    /// The configuration it was made with.
    public var configuration: RedisConfiguration { supervisor.configuration }

    /// The connection it holds (its state: ``RedisConnectionOwner``).
    public var connection: RedisSupervisedConnection { RedisSupervisedConnection(supervisor: supervisor) }

    /// Sends `command` and returns its reply.
    ///
    /// - Throws: ``RedisError/server(command:message:)`` for an error reply; ``RedisError/notConnected(_:)``,
    ///   ``RedisError/connectionLost(_:)``, ``RedisError/timeout(command:seconds:)`` when the connection fails.
    @discardableResult
    public func send(_ command: RedisCommand) async throws -> RESPValue {
        let reply = try await submit(command).get()
        if let message = reply.errorMessage { throw RedisError.server(command: command.name, message: message) }
        return reply
    }

    /// Sends `commands` pipelined (one write) and returns their replies in order; error replies are returned
    /// as ``RESPValue/error(_:)`` values, not thrown.
    ///
    /// - Throws: ``RedisError`` when the connection fails (then no reply is returned).
    public func send(_ commands: [RedisCommand]) async throws -> [RESPValue] {
        guard !commands.isEmpty else { return [] }
        guard let channel = supervisor.channel, channel.isActive else { throw notConnected() }
        let entries = commands.map {
            RedisRequest.Entry(command: $0, promise: channel.eventLoop.makePromise(of: RESPValue.self))
        }
        write(RedisRequest(entries), on: channel)
        var replies: [RESPValue] = []
        replies.reserveCapacity(entries.count)
        for entry in entries { replies.append(try await entry.promise.futureResult.get()) }
        return replies
    }

    /// Sends `command` and calls `onReply` with its reply (or failure) on the connection's event loop: no task,
    /// for hot paths such as publishing every event. An error reply arrives as `.success(.error(...))`.
    public func send(
        _ command: RedisCommand,
        onReply: @escaping @Sendable (Result<RESPValue, RedisError>) -> Void
    ) {
        submit(command).whenComplete { result in
            onReply(result.mapError { $0 as? RedisError ?? .connectionLost("\($0)") })
        }
    }

    /// Sends `command`, returning the future of its reply (failed at once when not connected).
    func submit(_ command: RedisCommand) -> EventLoopFuture<RESPValue> {
        guard let channel = supervisor.channel, channel.isActive else {
            return supervisor.group.any().makeFailedFuture(notConnected())
        }
        let promise = channel.eventLoop.makePromise(of: RESPValue.self)
        write(RedisRequest(command, promise: promise), on: channel)
        return promise.futureResult
    }

    /// Stops reconnecting and closes the connection; waiting commands fail.
    public func close() async {
        await supervisor.close()
    }

    private func write(_ request: RedisRequest, on channel: any Channel) {
        channel.writeAndFlush(request).whenFailure { error in
            request.fail(.notConnected("\(error)"))
        }
    }

    private func notConnected() -> RedisError {
        let state = supervisor.state
        return state == .closed ? .closed : .notConnected("\(state)")
    }
}
