import Logging
import PushtopServer

/// Runs `body` against a real embedded server on an ephemeral loopback port, and always shuts it down: the one
/// server fixture of the tests.
/// - Parameters:
///   - configure: changes to the default configuration (one app, port 0) before the server starts.
///   - logLevel: the server's log level (warnings by default, so that expected failures stay quiet).
public func withServer<T>(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    logLevel: Logger.Level = .warning,
    _ body: (EmbeddedServer) async throws -> T
) async throws -> T {
    var configuration = ServerConfiguration(port: 0)
    configure(&configuration)
    var logger = Logger(label: "test.server")
    logger.logLevel = logLevel
    let server = try await EmbeddedServer.start(configuration, logger: logger)
    return try await runAndCleanUp({ try await body(server) }, finally: { await server.shutdown() })
}

/// Runs `body`, then `cleanup`, whether `body` returned or threw.
public func runAndCleanUp<T>(_ body: () async throws -> T, finally cleanup: () async -> Void) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
