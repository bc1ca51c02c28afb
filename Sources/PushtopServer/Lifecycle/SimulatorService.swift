import ServiceLifecycle

/// The built-in demo traffic as a service: the first members join, then the traffic runs until the server stops,
/// and the simulated members leave.
struct SimulatorService: Service {
    let simulator: Simulator
    /// Called once the first members joined.
    let started: @Sendable () -> Void

    func run() async {
        await simulator.start()
        started()
        await cancelWhenGracefulShutdown { [simulator] in await simulator.run() }
        await simulator.stop()
    }
}
