/// One reconnecting Redis connection, as its owner holds it; opaque outside the module.
public struct RedisSupervisedConnection: Sendable {
    let supervisor: RedisConnectionSupervisor
}

/// What owns a reconnecting Redis connection (``RedisClient``, ``RedisSubscriber``) and reports its state: the
/// state now, a stream and a callback of the changes, and a wait for the connection to be up.
public protocol RedisConnectionOwner: Sendable {
    /// The connection it holds.
    var connection: RedisSupervisedConnection { get }
}

extension RedisConnectionOwner {
    /// The connection's state now.
    public var state: RedisConnectionState { connection.supervisor.state }

    /// The state now, then every change, until `close()` (which ends the stream after
    /// ``RedisConnectionState/closed``).
    public func stateChanges() -> AsyncStream<RedisConnectionState> { connection.supervisor.stateChanges() }

    /// Calls `body` with every state change, synchronously, on the thread where it happens (cheap; for metrics
    /// gauges).
    public func onStateChange(_ body: @escaping @Sendable (RedisConnectionState) -> Void) {
        connection.supervisor.onStateChange(body)
    }

    /// Waits until the connection is up (for a subscriber: with every subscription in place, since those are
    /// restored before the connection is reported up).
    ///
    /// - Throws: ``RedisError/notConnected(_:)`` after `timeout`, ``RedisError/closed`` if closed meanwhile.
    public func waitUntilUp(timeout: Duration) async throws {
        try await connection.supervisor.waitUntilUp(timeout: timeout)
    }
}
