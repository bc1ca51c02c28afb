import Logging
import PushtopRedis
import PushtopTestSupport

/// A logger for the tests: warnings and errors only (set PUSHTOP_TEST_LOG=debug to see everything).
let testLogger: Logger = {
    var logger = Logger(label: "pushtop.redis.tests")
    logger.logLevel = Environment.logLevel
    return logger
}()

private enum Environment {
    static var logLevel: Logger.Level {
        guard let text = getenvString("PUSHTOP_TEST_LOG") else { return .error }
        return Logger.Level(rawValue: text) ?? .error
    }
}

private func getenvString(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}

/// A configuration for tests: quick retries and timeouts so that faults show within a second or two.
func testConfiguration(
    _ url: String, name: String = "test", commandTimeout: Duration = .seconds(2),
    healthCheck: Duration? = .milliseconds(200)
) throws -> RedisConfiguration {
    RedisConfiguration(
        url: try RedisURL(url), connectTimeout: .seconds(2), commandTimeout: commandTimeout,
        healthCheckInterval: healthCheck,
        backoff: RedisBackoff(initial: .milliseconds(50), maximum: .milliseconds(400)), name: name)
}

/// A client connected to `server`, up.
func connectedClient(_ server: RedisServerProcess, _ url: String? = nil) async throws -> RedisClient {
    let client = RedisClient(configuration: try testConfiguration(url ?? server.url), logger: testLogger)
    try await client.waitUntilUp(timeout: .seconds(10))
    return client
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
