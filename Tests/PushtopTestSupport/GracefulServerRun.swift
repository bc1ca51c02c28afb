import Logging
import ServiceLifecycle

/// A test server (a Hummingbird `Application`) running in a service group of its own, stopped by a graceful
/// shutdown, never by cancelling the task that runs it.
///
/// Cancelling ends the loop that takes accepted connections before the listening socket is closed; a connection
/// accepted in between is dropped before anyone finished its `NIOAsyncChannel`, and NIO answers that with a crash
/// of the whole test process ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#3481). The unit
/// tier crashed so under AddressSanitizer (`scripts/sanitize`): a client still reconnecting to a server its test had
/// stopped. A graceful shutdown closes the listening socket first and hands every connection already accepted to
/// the server; what is still open after `grace` is cancelled then, when no connection can arrive any more.
public final class GracefulServerRun: Sendable {
    private let group: ServiceGroup

    /// Starts running `service`; connections still open `grace` after ``stop()`` are cancelled.
    public init(_ service: some Service, grace: Duration = .seconds(2)) {
        var configuration = ServiceGroupConfiguration(
            services: [service], logger: Logger(label: "test-server", factory: { _ in SwiftLogNoOpLogHandler() }))
        configuration.maximumGracefulShutdownDuration = grace
        let group = ServiceGroup(configuration: configuration)
        self.group = group
        Task { try? await group.run() }
    }

    /// Starts the graceful shutdown and returns at once (a test's `defer` cannot wait for it).
    public func stop() {
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
    }
}
