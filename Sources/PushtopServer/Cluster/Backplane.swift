import ServiceLifecycle

/// What sits beside the hub so that several nodes act as one app: it carries the hub's events to the other nodes,
/// keeps the cluster's presence roster and counts, and answers cluster-wide queries.
///
/// - Important: The hub never waits on it to deliver to its own sockets: ``send(_:)`` only queues (in order) and
///   answers come back later through the hub's own methods (``PusherHub/clusterReceive(_:)`` and the like).
public protocol Backplane: Sendable {
    /// Whether presence, counts and queries are shared with other nodes (`false`: one node, local answers).
    var isClustered: Bool { get }
    /// This node's name (`nil` for a single node).
    var nodeID: String? { get }
    /// Queues an operation for the cluster, after those queued before it. Never waits.
    func send(_ operation: ClusterOperation)
    /// The cluster's occupied channels whose names start with `prefix`, or `nil` to answer from this node alone.
    func channelSummaries(prefix: String) async -> [ChannelSummary]?
    /// One channel across the cluster, or `nil` to answer from this node alone.
    func channelSummary(_ name: String) async -> ChannelSummary?
    /// A presence channel's user ids across the cluster, or `nil` to answer from this node alone.
    func users(in channel: String) async -> [String]?
    /// The state of the link to the other nodes (`GET /health`, `/metrics`).
    var health: ClusterHealth { get }
    /// Carries messages for `hub` (connects, subscribes, heartbeats) until the server shuts down gracefully (the
    /// task's `ServiceGroup`) or the task is cancelled; then removes this node's presence from the cluster when it
    /// can, and disconnects. Calls `started` once the node joined, or once it gave up waiting and serves alone.
    func run(hub: PusherHub, started: @escaping @Sendable () -> Void) async
}

/// The link between a node and its cluster.
public enum ClusterHealth: String, Sendable, Hashable {
    /// A single node: there is no cluster.
    case disabled
    /// Connected to Redis: presence and counts are shared.
    case up
    /// Not connected: the node serves its own subscribers alone.
    case down
    /// Connected again and re-registering this node's presence.
    case reconnecting
}

/// A single node: nothing leaves the process, and every answer is the hub's own (today's behaviour).
public struct LocalBackplane: Backplane {
    public init() {}
    public var isClustered: Bool { false }
    public var nodeID: String? { nil }
    public func send(_ operation: ClusterOperation) {}
    public func channelSummaries(prefix: String) async -> [ChannelSummary]? { nil }
    public func channelSummary(_ name: String) async -> ChannelSummary? { nil }
    public func users(in channel: String) async -> [String]? { nil }
    public var health: ClusterHealth { .disabled }
    /// Has nothing to join: calls `started` at once, then waits for the server to stop.
    public func run(hub: PusherHub, started: @escaping @Sendable () -> Void) async {
        started()
        try? await gracefulShutdown()
    }
}
