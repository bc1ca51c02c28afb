/// The cluster's lines of `GET /metrics` (a node with `--redis` only), labelled with the node id so that one
/// Prometheus can scrape every node: whether Redis is reachable, bus messages lost while it was not, dead nodes
/// this node cleaned up.
struct ClusterMetrics {
    let nodeID: String
    let health: ClusterHealth
    let lostPublishes: Int
    let nodesRemoved: Int

    init?(backplane: any Backplane) {
        guard backplane.isClustered, let nodeID = backplane.nodeID else { return nil }
        self.nodeID = nodeID
        health = backplane.health
        let counters = (backplane as? RedisBackplane)?.counters ?? (0, 0)
        lostPublishes = counters.0
        nodesRemoved = counters.1
    }

    var exposition: String {
        let node = "node_id=\"\(Self.escape(nodeID))\""
        var lines: [String] = []
        lines.append(
            "# HELP pushtop_cluster_redis_up Whether this node reaches Redis (1) or serves its own subscribers alone (0)."
        )
        lines.append("# TYPE pushtop_cluster_redis_up gauge")
        lines.append("pushtop_cluster_redis_up{\(node),state=\"\(health.rawValue)\"} \(health == .up ? 1 : 0)")
        lines.append(
            "# HELP pushtop_cluster_lost_publishes_total Events and messages not carried to the other nodes because Redis was away."
        )
        lines.append("# TYPE pushtop_cluster_lost_publishes_total counter")
        lines.append("pushtop_cluster_lost_publishes_total{\(node)} \(lostPublishes)")
        lines.append(
            "# HELP pushtop_cluster_dead_nodes_removed_total Nodes whose heartbeat expired and whose members this node removed."
        )
        lines.append("# TYPE pushtop_cluster_dead_nodes_removed_total counter")
        lines.append("pushtop_cluster_dead_nodes_removed_total{\(node)} \(nodesRemoved)")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
