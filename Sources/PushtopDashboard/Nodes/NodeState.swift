import PusherProtocol
import PushtopKit

/// Several nodes of one app (`pushtop --node A --node B`): each node is one of the dashboard's apps (a row in
/// the connection pane, a column in the log, `A` selects), and this state watches them as one deployment:
///
/// - the **cross-node canary**: every ``interval`` seconds a canary event is published through one node's HTTP
///   API (in turn) on a private channel every node's connection subscribes; ``audit`` counts per node what
///   arrived (latency) and what did not (`node B missed canary 17 (published via A)`);
/// - **presence across nodes**: for each presence channel, the roster each node's connection holds is compared
///   with the first node's at every interval, with ``RosterAgreement``'s rule (members with an event since the
///   last comparison are discounted; a difference counts once two comparisons agree), so churn raises no alarm.
public struct NodeState: Sendable {
    /// The nodes' names (`HOST:PORT`), by app index.
    public let nodes: [String]
    /// The private channel the canaries travel on.
    public let canaryChannel: String
    /// Seconds between canaries (and roster comparisons).
    public let interval: Double
    /// Whether canaries are published (the app secret and id are known).
    public let canaryEnabled: Bool
    /// The canary's counts per node.
    public internal(set) var audit: CanaryAudit
    /// Confirmed roster splits per presence channel (empty when the nodes agree).
    public internal(set) var splits: [String: [RosterSplit]] = [:]
    /// The newest canary finding per node, for the node rows (e.g. `missed 17`).
    public internal(set) var lastProblem: [String: String] = [:]
    /// The newest canary each node missed.
    public internal(set) var lastMissed: [String: Int] = [:]
    var nextSeq = 1
    var nextCanaryAt: Double?
    var firstTickAt: Double?
    var nextCompareAt: Double?
    /// channel → node index (1...) → the agreement of that node's roster with node 0's.
    var agreements: [String: [Int: RosterAgreement<String>]] = [:]
    /// channel → node index → the agreement of that node's connection roster with its own HTTP API's answer.
    var apiAgreements: [String: [Int: RosterAgreement<String>]] = [:]
    /// Confirmed differences between a node's connection roster and its HTTP API, per channel (text lines:
    /// `alice: not in node A's API` for a member the connection holds and the API does not, `only in` the other way).
    public internal(set) var apiDifferences: [String: [String]] = [:]

    /// The event name of canaries.
    public static let canaryEvent = "pushtop-canary"

    public init(nodes: [String], canaryChannel: String, interval: Double = 5, canaryEnabled: Bool) {
        self.nodes = nodes
        self.canaryChannel = canaryChannel
        self.interval = interval
        self.canaryEnabled = canaryEnabled
        audit = CanaryAudit(nodes: nodes, grace: min(interval, 3))
    }
}

/// One member the nodes disagree on: which nodes' connections hold them.
public struct RosterSplit: Sendable, Hashable {
    public var userID: String
    /// The nodes holding the member (the others do not).
    public var on: [String]

    /// `alice: on node A only`, or `alice: on A, B; not on C`.
    public func text(nodes: [String]) -> String {
        if on.count == 1 { return "\(userID): on node \(on[0]) only" }
        let off = nodes.filter { !on.contains($0) }
        return "\(userID): on \(on.joined(separator: ", ")); not on \(off.joined(separator: ", "))"
    }
}

/// What the dashboard asks of the nodes' HTTP APIs (performed by the runner, answered with ``NodeAnswer``).
public enum NodeRequest: Sendable, Hashable {
    /// Publish a canary through the HTTP API of the node with this app index.
    case publishCanary(app: Int, channel: String, event: String, data: String, seq: Int)
    /// Ask the node's HTTP API for a presence channel's user ids.
    case presenceUsers(app: Int, channel: String)
}

/// The answers to ``NodeRequest``s.
public enum NodeAnswer: Sendable, Hashable {
    /// Publishing canary `seq` through the node failed: it is expected nowhere.
    case canaryFailed(app: Int, seq: Int, message: String)
    /// The node's HTTP API answered a presence channel's user ids (or failed).
    case presenceUsers(app: Int, channel: String, userIDs: [String]?, error: String?)
}
