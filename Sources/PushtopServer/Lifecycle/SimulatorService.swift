import ServiceLifecycle

/// The built-in demo traffic as a service: once the server listens, the first members join, then the traffic runs
/// until the server stops, and the simulated members leave.
struct SimulatorService: Service {
    let simulator: Simulator
    /// Ends when the simulation may begin (the server listens, and a node joined its cluster).
    let startsAfter: AsyncStream<Void>
    /// Called once the first members joined.
    let started: @Sendable () -> Void

    func run() async {
        for await _ in startsAfter {}
        guard !Task.isCancelled else { return }  // the server did not start
        await simulator.start()
        started()
        await cancelWhenGracefulShutdown { [simulator] in await simulator.run() }
        await simulator.stop()
    }
}
