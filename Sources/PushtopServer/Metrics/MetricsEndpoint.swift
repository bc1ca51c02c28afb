import Hummingbird
import Prometheus
import Synchronization

/// `GET /metrics`: the hubs' statistics for Prometheus, on the server's port.
///
/// A server of one app (no apps file) writes each metric once, without labels; a server of several apps writes each
/// metric once per app, labelled `app="ID"`, so that nothing of one app is counted in another's.
final class MetricsEndpoint: Sendable {
    let apps: AppDirectory
    /// Whether each metric carries the `app` label (the server serves an apps file).
    let labelled: Bool
    private let registry = PrometheusCollectorRegistry()
    private let perApp = Mutex<[String: PrometheusMetrics]>([:])

    init(apps: AppDirectory, labelled: Bool) {
        self.apps = apps
        self.labelled = labelled
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/metrics") { [self] _, _ in
            let nodes = apps.nodes
            for node in nodes {
                let stats = await node.hub.statistics
                metrics(for: node.credentials.id).update(stats)
            }
            var text = registry.emitToString()
            if let cluster = ClusterMetrics(backplane: nodes[0].hub.backplane) { text += cluster.exposition }
            text += apps.refusals.exposition
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }

    /// The metrics of the app `id`, made on first use (an app added by a reload gets its own).
    private func metrics(for id: String) -> PrometheusMetrics {
        perApp.withLock { cache in
            if let metrics = cache[id] { return metrics }
            let metrics = PrometheusMetrics(registry: registry, labels: labelled ? [("app", id)] : [])
            cache[id] = metrics
            return metrics
        }
    }
}
