import ServiceLifecycle

/// The hub's life as a service: it sweeps about once a second while the server runs (pings, pong timeouts,
/// coalesced counts, expired cache) and, when the server stops, closes every connection with 1001.
struct HubService: Service {
    let hub: PusherHub
    /// Between sweeps.
    let sweepInterval: Duration

    func run() async {
        try? await cancelWhenGracefulShutdown { [hub, sweepInterval] in
            while !Task.isCancelled {
                try await Task.sleep(for: sweepInterval)
                await hub.sweep()
            }
        }
        await hub.shutdown()
    }
}
