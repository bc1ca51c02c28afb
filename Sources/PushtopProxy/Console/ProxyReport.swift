/// What `pushtop proxy --report` prints at exit: connections and messages relayed, each fault rule and how often
/// it applied, and for the clients hit by faults: how many reconnected and resubscribed, and how fast.
public struct ProxyReport: Sendable, CustomStringConvertible {
    /// Connections relayed (their upstream accepted them).
    public var connections: Int
    /// Connections refused by an `outage`.
    public var refusedConnections: Int
    /// Messages relayed from clients to the upstream.
    public var messagesFromClients: Int
    /// Messages relayed from the upstream to clients.
    public var messagesFromUpstream: Int
    /// Each rule in force and how often it applied.
    public var faults: [(rule: String, applied: Int)]
    /// Clients hit by a close or a stall.
    public var affected: Int
    /// Of them, those that reconnected.
    public var reconnected: Int
    /// Of them, those back in every channel they were in.
    public var resubscribed: Int
    /// Of them, those still within the recovery timeout.
    public var pending: Int
    /// Fault to reconnection, milliseconds, sorted.
    public var reconnectMs: [Int64]
    /// Fault to the last channel confirmed again, milliseconds, sorted.
    public var resubscribeMs: [Int64]
    /// Socket ids of clients that did not come back (or not to all their channels), with what was missing.
    public var notRecovered: [String]

    init(core: ProxyCore) {
        let counts = core.counters.snapshot
        connections = counts.connections
        refusedConnections = counts.refused
        messagesFromClients = counts.fromClient
        messagesFromUpstream = counts.fromUpstream
        faults = core.faults.appliedCounts.map { ($0.text, $0.applied) }
        let outcomes = core.recoveries.outcomes
        affected = outcomes.count
        reconnected = outcomes.filter(\.outcome.reconnected).count
        resubscribed = outcomes.filter { $0.outcome.recovered }.count
        pending = outcomes.filter { !$0.done }.count
        reconnectMs = outcomes.compactMap(\.outcome.reconnectMs).sorted()
        resubscribeMs = outcomes.compactMap(\.outcome.resubscribeMs).sorted()
        notRecovered = outcomes.filter { $0.done && !$0.outcome.recovered }.map { item in
            let who = item.outcome.previousSocketID ?? "?"
            return item.outcome.reconnected
                ? "\(who): not resubscribed to \(item.outcome.missing.joined(separator: ", "))"
                : "\(who): did not reconnect"
        }
    }

    /// The report as printed.
    public var description: String {
        var lines = [
            "pushtop proxy report",
            "  connections relayed: \(connections)\(refusedConnections > 0 ? ", refused: \(refusedConnections)" : "")",
            "  messages relayed: \(messagesFromClients) from clients, \(messagesFromUpstream) from the upstream",
        ]
        if faults.isEmpty {
            lines.append("  faults: none")
        } else {
            lines.append("  faults:")
            for fault in faults {
                lines.append("    \(fault.rule): applied \(fault.applied) time\(fault.applied == 1 ? "" : "s")")
            }
        }
        if affected > 0 {
            lines.append(
                "  clients hit by a close or stall: \(affected); reconnected \(reconnected), resubscribed to every channel \(resubscribed)"
                    + (pending > 0 ? ", still waiting \(pending)" : ""))
            if !reconnectMs.isEmpty { lines.append("  reconnect: \(Self.summary(reconnectMs))") }
            if !resubscribeMs.isEmpty { lines.append("  resubscribe: \(Self.summary(resubscribeMs))") }
            for line in notRecovered { lines.append("  not recovered: \(line)") }
        }
        return lines.joined(separator: "\n")
    }

    /// `p50 12 ms, p99 40 ms, max 41 ms` of sorted values.
    static func summary(_ sorted: [Int64]) -> String {
        func percentile(_ p: Double) -> Int64 {
            sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
        return "p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms, max \(sorted.last!) ms"
    }
}
