/// How a node joins a cluster of `pushtop serve` nodes that act as one app through Redis.
///
/// Without it (``ServerConfiguration/cluster`` is `nil`) the server is one process and needs no Redis.
public struct ClusterConfiguration: Sendable, Hashable {
    /// Where Redis is: `redis://HOST:PORT[/DB]`.
    public var redisURL: String
    /// This node's name in logs, metrics, `GET /health` and the presence registry (unique in the cluster).
    public var nodeID: String
    /// Prefix of every Redis key and pub/sub channel, so several clusters or apps can share one Redis.
    public var prefix: String
    /// Seconds after a node's last heartbeat at which the survivors remove its connections (members, counts).
    public var nodeTimeout: Double

    /// A cluster through the Redis at `redisURL`; `nodeID` defaults to a random name.
    public init(redisURL: String, nodeID: String? = nil, prefix: String = "pushtop", nodeTimeout: Double = 20) {
        self.redisURL = redisURL
        self.nodeID = nodeID ?? Self.randomNodeID()
        self.prefix = prefix
        self.nodeTimeout = nodeTimeout
    }

    /// Seconds between heartbeats (and between checks for dead nodes): a quarter of ``nodeTimeout``, so a dead
    /// node is removed within 1.25 × ``nodeTimeout``.
    public var heartbeatInterval: Double { max(0.05, nodeTimeout / 4) }

    /// `node-` and eight hexadecimal digits.
    public static func randomNodeID() -> String {
        "node-" + String(UInt32.random(in: 0...UInt32.max), radix: 16).leftPadded(to: 8)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
