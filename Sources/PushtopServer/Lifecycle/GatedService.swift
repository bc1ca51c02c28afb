import ServiceLifecycle

/// A service that starts only once `gate` ends (what it needs is ready), or not at all when the server stops first.
///
/// The server listens only once a node joined its cluster (or gave up waiting), and the simulation begins only once
/// the server listens, as when they were started one after the other.
struct GatedService: Service {
    /// Ends when the service may start.
    let gate: AsyncStream<Void>
    let service: any Service

    func run() async throws {
        for await _ in gate.cancelOnGracefulShutdown() {}
        guard !Task.isCancelled, !Task.isShuttingDownGracefully else { return }
        try await service.run()
    }
}
