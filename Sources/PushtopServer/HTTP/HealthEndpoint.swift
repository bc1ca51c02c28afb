import Hummingbird
import PusherProtocol

/// `GET /health`: for load balancers. 200 while the node serves (its own subscribers at least, Redis or not),
/// 503 once it is shutting down; the body says which node it is and how its link to the cluster stands:
/// `{"status":"ok","node_id":"node-1","redis":"up"}` (`redis` is `disabled` for a single node, `down` or
/// `reconnecting` while the node serves alone). `connections` counts every app's.
struct HealthEndpoint: Sendable {
    let apps: AppDirectory

    func register(on router: Router<BasicRequestContext>) {
        router.get("/health") { _, _ in
            let nodes = apps.nodes
            let hub = nodes[0].hub
            let serving = await !hub.isShuttingDown
            var connections = 0
            for node in nodes { connections += await node.hub.connectionCount }
            var body: [String: JSONValue] = [
                "status": .string(serving ? "ok" : "shutting_down"),
                "redis": .string(hub.backplane.health.rawValue),
                "connections": .number(Double(connections)),
            ]
            if let node = hub.backplane.nodeID { body["node_id"] = .string(node) }
            return Response(
                status: serving ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: JSONValue.object(body).jsonString)))
        }
    }
}
