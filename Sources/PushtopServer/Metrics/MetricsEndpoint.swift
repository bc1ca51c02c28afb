import Hummingbird
import Prometheus
import Synchronization

/// `GET /metrics`: the hubs' statistics for Prometheus, on the server's port.
///
/// A server of one app (no apps file) writes each metric once, without labels; a server of several apps writes each
/// metric once per app, labelled `app="ID"`, so that nothing of one app is counted in another's. After a reload the
/// apps are those of the new file. Beside them: `pushtop_console_listeners{app="ID"}` (open debug feeds, per app),
/// the cluster's lines, and `pushtop_refused_total{reason="…"}` (strangers, refused before reaching any app).
final class MetricsEndpoint: Sendable {
    let apps: AppDirectory
    /// Whether each metric carries the `app` label (the server serves an apps file).
    let labelled: Bool
    private let registry = PrometheusCollectorRegistry()
    /// Each served app's metrics; the node is kept with them so that its identifier cannot name another node meanwhile.
    private let perApp = Mutex<[ObjectIdentifier: (node: AppNode, metrics: PrometheusMetrics)]>([:])

    init(apps: AppDirectory, labelled: Bool) {
        self.apps = apps
        self.labelled = labelled
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/metrics") { [self] _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: await exposition())))
        }
    }

    /// The text of a scrape: every app served now (an app a reload removed is gone, one it added is there), the
    /// console listeners of each, the cluster's lines and what was refused before reaching any app.
    func exposition() async -> String {
        let nodes = apps.nodes
        let current = forgetAllBut(nodes)
        for (node, metrics) in zip(nodes, current) {
            metrics.update(await node.hub.statistics)
        }
        var text = registry.emitToString()
        text += Self.consoleListeners(nodes)
        if let cluster = ClusterMetrics(backplane: nodes[0].hub.backplane) { text += cluster.exposition }
        text += apps.refusals.exposition
        return text
    }

    /// `pushtop_console_listeners{app="ID"}`: the debug feeds (`GET /apps/{id}/console`) open on this node, per app.
    static func consoleListeners(_ nodes: [AppNode]) -> String {
        var lines = [
            "# HELP pushtop_console_listeners Debug console feeds open on this node.",
            "# TYPE pushtop_console_listeners gauge",
        ]
        for node in nodes {
            let id = node.credentials.id.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            lines.append("pushtop_console_listeners{app=\"\(id)\"} \(node.hub.console.listenerCount)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The metrics of each of `nodes` (made on first use: an app added by a reload gets its own); the metrics of an
    /// app no longer served, or served afresh (new credentials), leave the registry.
    private func forgetAllBut(_ nodes: [AppNode]) -> [PrometheusMetrics] {
        perApp.withLock { cache in
            let wanted = Set(nodes.map { ObjectIdentifier($0) })
            for (id, entry) in cache where !wanted.contains(id) {
                entry.metrics.unregister()
                cache[id] = nil
            }
            return nodes.map { node in
                if let entry = cache[ObjectIdentifier(node)] { return entry.metrics }
                let metrics = PrometheusMetrics(
                    registry: registry, labels: labelled ? [("app", node.credentials.id)] : [])
                cache[ObjectIdentifier(node)] = (node, metrics)
                return metrics
            }
        }
    }
}
