import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A Redis connection in subscribe mode: receives the messages of its channels and patterns, and subscribes
/// again after every reconnection.
///
/// ```swift
/// let subscriber = RedisSubscriber(configuration: configuration, logger: logger) { message in
///     hub.deliver(message.payload)      // on the subscriber's event loop, in publish order
/// }
/// try await subscriber.subscribe(["pushtop:events"])
/// ```
///
/// - Important: `onMessage` runs on the connection's event loop, synchronously, in the order Redis sent the
///   messages: keep it short (hand the bytes on), never block. Pass the event loop of the code that consumes
///   the messages as `eventLoopGroup` to avoid a thread hop. Messages published while the connection is down
///   are lost (Redis pub/sub keeps nothing): watch ``stateChanges()`` and resynchronise after a return.
public final class RedisSubscriber: RedisConnectionOwner {
    private struct Wanted {
        var channels: Set<String> = []
        var patterns: Set<String> = []
        /// The connection being set up or up; under the same lock as the sets, so that a subscription added
        /// during set-up is either in set-up's snapshot or sent by ``subscribe(_:)`` itself.
        var channel: (any Channel)?
    }

    /// The sets under a lock, in a box of their own: the supervisor's set-up closure, made before `self` exists,
    /// shares them.
    private final class WantedBox: Sendable {
        let lock = Mutex(Wanted())
    }

    private let wanted = WantedBox()
    private let supervisor: RedisConnectionSupervisor

    /// A subscriber for `configuration` (its own connection); it starts connecting at once. `onMessage` gets
    /// every message of the channels and patterns subscribed.
    public init(
        configuration: RedisConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger,
        onMessage: @escaping @Sendable (RedisPubSubMessage) -> Void
    ) {
        let wanted = self.wanted
        supervisor = RedisConnectionSupervisor(
            configuration: configuration, group: eventLoopGroup, logger: logger, onPush: onMessage,
            setUp: { channel in
                // Restore the subscriptions before the connection is reported up.
                let now = wanted.lock.withLock { wanted in
                    wanted.channel = channel
                    return wanted
                }
                try await Self.send("SUBSCRIBE", Array(now.channels), on: channel)
                try await Self.send("PSUBSCRIBE", Array(now.patterns), on: channel)
            })
        supervisor.start()
    }

    /// The connection it holds (its state: ``RedisConnectionOwner``).
    public var connection: RedisSupervisedConnection { RedisSupervisedConnection(supervisor: supervisor) }

    /// The channels and patterns subscribed (or to be subscribed again on reconnection).
    public var subscriptions: (channels: Set<String>, patterns: Set<String>) {
        wanted.lock.withLock { ($0.channels, $0.patterns) }
    }

    /// Adds `channels`: kept across reconnections; when up, returns once Redis confirmed them (when down,
    /// at once: they are subscribed on the next connection).
    ///
    /// - Throws: ``RedisError`` when the connection failed while subscribing (the channels stay wanted).
    public func subscribe(_ channels: [String]) async throws {
        let (new, channel) = wanted.lock.withLock { wanted in
            (channels.filter { wanted.channels.insert($0).inserted }, wanted.channel)
        }
        try await send("SUBSCRIBE", new, on: channel)
    }

    /// Adds `patterns` (`PSUBSCRIBE`, glob-style: `pushtop:*`), like ``subscribe(_:)``.
    public func subscribe(patterns: [String]) async throws {
        let (new, channel) = wanted.lock.withLock { wanted in
            (patterns.filter { wanted.patterns.insert($0).inserted }, wanted.channel)
        }
        try await send("PSUBSCRIBE", new, on: channel)
    }

    /// Removes `channels`.
    public func unsubscribe(_ channels: [String]) async throws {
        let (gone, channel) = wanted.lock.withLock { wanted in
            (channels.filter { wanted.channels.remove($0) != nil }, wanted.channel)
        }
        try await send("UNSUBSCRIBE", gone, on: channel)
    }

    /// Removes `patterns`.
    public func unsubscribe(patterns: [String]) async throws {
        let (gone, channel) = wanted.lock.withLock { wanted in
            (patterns.filter { wanted.patterns.remove($0) != nil }, wanted.channel)
        }
        try await send("PUNSUBSCRIBE", gone, on: channel)
    }

    /// Stops reconnecting and closes the connection.
    public func close() async {
        await supervisor.close()
    }

    /// Sends when there is a live connection; otherwise the next connection's set-up does it.
    private func send(_ command: String, _ names: [String], on channel: (any Channel)?) async throws {
        guard !names.isEmpty, let channel, channel.isActive else { return }
        try await Self.send(command, names, on: channel)
    }

    /// `SUBSCRIBE a b c` and friends: Redis confirms each name with its own reply.
    private static func send(_ command: String, _ names: [String], on channel: any Channel) async throws {
        guard !names.isEmpty else { return }
        let reply = try await RedisConnectionSupervisor.send(
            RedisCommand(command, arguments: names.map { .string($0) }), on: channel, replies: names.count)
        if let message = reply.errorMessage { throw RedisError.server(command: command, message: message) }
    }
}
