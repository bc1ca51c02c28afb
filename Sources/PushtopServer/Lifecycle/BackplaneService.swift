import ServiceLifecycle

/// The backplane's link to the cluster as a service (see ``Backplane/run(hub:started:)``).
///
/// - Important: Register it after the HTTP server and the webhooks and before ``HubService``: when the server stops,
///   the hub closes its connections first, the cluster hears them leave and then this node's goodbye, and the
///   webhooks those departures decide still go out.
struct BackplaneService: Service {
    let backplane: any Backplane
    let hub: PusherHub
    /// Called once the node joined its cluster, or gave up waiting and serves alone.
    let started: @Sendable () -> Void

    func run() async {
        await backplane.run(hub: hub, started: started)
    }
}
