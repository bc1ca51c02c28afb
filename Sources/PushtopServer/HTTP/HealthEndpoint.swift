import Hummingbird
import PusherProtocol

/// `GET /health`: for load balancers. 200 while the node serves (its own subscribers at least, Redis or not),
/// 503 once it is shutting down; the body says which node it is and how each app's link to the cluster stands:
///
/// ```json
/// {"status":"ok","node_id":"node-1","redis":"up","connections":12,
///  "apps":[{"id":"1","redis":"up","connections":7},{"id":"2","redis":"up","connections":5}]}
/// ```
///
/// Each app has its own backplane (`apps[].redis`: `disabled` for a single node, `up`, `down` or `reconnecting`
/// while it serves alone); `redis` is the worst of them and `status` sums them up: `ok` when every link is up (or
/// there is no cluster), `degraded` while one is not (the node still serves, so still 200), `shutting_down` (503).
/// The apps are those served now: a reload changes them.
struct HealthEndpoint: Sendable {
    let apps: AppDirectory

    func register(on router: Router<BasicRequestContext>) {
        router.get("/health") { _, _ in
            let (status, body) = await report()
            return Response(
                status: status, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: body.jsonString)))
        }
    }

    /// The answer's status and body.
    func report() async -> (HTTPResponse.Status, JSONValue) {
        let nodes = apps.nodes
        var serving = true
        var connections = 0
        var links: [ClusterHealth] = []
        var perApp: [JSONValue] = []
        for node in nodes {
            let hub = node.hub
            if await hub.isShuttingDown { serving = false }
            let count = await hub.connectionCount
            connections += count
            let link = hub.backplane.health
            links.append(link)
            perApp.append(
                JSONValue.object([
                    "id": .string(node.credentials.id), "redis": .string(link.rawValue),
                    "connections": .number(Double(count)),
                ]))
        }
        let overall = Self.worst(links)
        var body: [String: JSONValue] = [
            "status": .string(!serving ? "shutting_down" : overall == .up || overall == .disabled ? "ok" : "degraded"),
            "redis": .string(overall.rawValue),
            "connections": .number(Double(connections)),
            "apps": .array(perApp),
        ]
        if let node = nodes.lazy.compactMap(\.hub.backplane.nodeID).first { body["node_id"] = .string(node) }
        return (serving ? .ok : .serviceUnavailable, .object(body))
    }

    /// The link that stands worst: `down`, then `reconnecting`, then `up`; `disabled` when there is no cluster.
    static func worst(_ links: [ClusterHealth]) -> ClusterHealth {
        for candidate in [ClusterHealth.down, .reconnecting, .up] where links.contains(candidate) { return candidate }
        return .disabled
    }
}
