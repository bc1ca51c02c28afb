import Hummingbird

/// `GET /metrics`: the hub's statistics for Prometheus, on the server's port.
struct MetricsEndpoint: Sendable {
    let hub: PusherHub
    let metrics = PrometheusMetrics()

    func register(on router: Router<BasicRequestContext>) {
        router.get("/metrics") { _, _ in
            var text = metrics.render(await hub.statistics)
            if let cluster = ClusterMetrics(backplane: hub.backplane) { text += cluster.exposition }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }
}
