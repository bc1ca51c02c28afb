import Logging

/// How to reach Redis and how the connection behaves when it is slow or goes away.
public struct RedisConfiguration: Sendable {
    /// Where Redis is, and the sign-in and database.
    public var url: RedisURL
    /// How long one TCP connection attempt may take.
    public var connectTimeout: Duration
    /// How long a command may wait for its reply before the connection is declared dead (closed, every waiting
    /// command failed with ``RedisError/timeout(command:seconds:)``, then reconnected). Catches a Redis that
    /// stopped answering without closing (a network partition).
    public var commandTimeout: Duration
    /// While idle, a `PING` is sent this often so that a silent partition is noticed within about
    /// `healthCheckInterval + commandTimeout`; `nil`: no health check.
    public var healthCheckInterval: Duration?
    /// The delays between reconnection attempts.
    public var backoff: RedisBackoff
    /// The decoder's limits on what Redis may send.
    public var limits: RESPDecoder.Limits
    /// A name for log lines (`redis.connection` metadata), e.g. "commands" or "subscriber".
    public var name: String

    /// A configuration for `url`; the defaults suit a cluster node on a LAN.
    public init(
        url: RedisURL, connectTimeout: Duration = .seconds(2), commandTimeout: Duration = .seconds(3),
        healthCheckInterval: Duration? = .seconds(1), backoff: RedisBackoff = RedisBackoff(),
        limits: RESPDecoder.Limits = RESPDecoder.Limits(), name: String = "redis"
    ) {
        self.url = url
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.healthCheckInterval = healthCheckInterval
        self.backoff = backoff
        self.limits = limits
        self.name = name
    }
}
