/// The delivery audit of a canary: sequence-numbered events published through the nodes of one app, each
/// expected once on every node's connection. Per node it counts what arrived, what never did (lost while the
/// node's subscription was up, or "away" while it was reconnecting), duplicates, events that arrived after a
/// later one, and the arrival latency. A pure value: the caller feeds it what happened and when
/// (`pushtop canary` and the dashboard's cross-node canary both do).
public struct CanaryAudit: Sendable {
    /// What the audit noticed, as it happens.
    public enum Finding: Sendable, Hashable {
        /// `node` did not receive canary `seq` (published through `via`) within the grace time. `away`: the
        /// node's subscription was down at some point in that window (it was reconnecting).
        case missed(node: String, seq: Int, via: String, away: Bool)
        /// `node` received `seq` again.
        case duplicated(node: String, seq: Int)
        /// `node` received `seq` from a publish through `via` that had failed (the connection broke, or the API
        /// answered with an error, after the node had taken it) and was published again through another node.
        /// Not counted, and not a duplicate: the canary cannot know that a failed publish landed.
        case landedAfterError(node: String, seq: Int, via: String)
        /// `node` received `seq` after `after`, a later one.
        case reordered(node: String, seq: Int, after: Int)
        /// `node` received `seq` after it had been counted as missed (it is no longer counted so).
        case late(node: String, seq: Int, latencyMs: Double)
        /// `node` has received nothing for `seconds` while its subscription is up and canaries are published.
        case stalled(node: String, seconds: Double)
        /// `node` receives again after a stall.
        case resumed(node: String)
        /// `node`'s subscription is up again after being down (a reconnect).
        case reconnected(node: String)
        /// `node`'s subscription went down.
        case wentAway(node: String)
    }

    /// One node's counts.
    public struct Tally: Sendable {
        public var published = 0
        public var received = 0
        public var lost = 0
        public var away = 0
        public var duplicated = 0
        public var reordered = 0
        public var reconnects = 0
        /// Every latency (ms), thinned to at most ``CanaryAudit/latencyCapacity`` by dropping every other.
        public var latencies = LatencySamples()
        /// The latencies since ``CanaryAudit/takeWindow(node:)`` last took them.
        public var window = LatencySamples()
        /// The seqs counted as missed (a late arrival takes its seq out again).
        var missed: [Int: (away: Bool, at: Double)] = [:]
        var seen: Set<Int> = []
        var highest: Int?
        var available = false
        var wasAvailable = false
        var downSince: Double?
        /// When the subscription went down and came back, for classifying misses as away.
        var downIntervals: [(from: Double, to: Double)] = []
        var lastArrival: Double?
        var stalled = false

        /// Whether the node's subscription is up.
        public var isAvailable: Bool { available }

        /// Whether the node is counted as stalled now.
        public var isStalled: Bool { stalled }
    }

    /// The nodes, in the order given.
    public let nodes: [String]
    /// Seconds a canary may take to arrive before it counts as missed.
    public var grace: Double
    /// Seconds without an arrival (while canaries are published and the subscription is up) that make a stall.
    public var stallAfter: Double
    public private(set) var tallies: [String: Tally]
    /// Published canaries still inside their grace time: seq → (when, through which node).
    private var outstanding: [Int: (at: Double, via: String)] = [:]
    /// The seqs before this one are settled on every node.
    private var horizon = 0
    /// Publishes that failed: seq → the nodes they went through. One can still land (see
    /// ``Finding/landedAfterError(node:seq:via:)``).
    private var failedAttempts: [Int: Set<String>] = [:]
    private var lastPublished: Double?

    /// The most latencies kept per node for the percentiles.
    public static let latencyCapacity = 100_000

    public init(nodes: [String], grace: Double, stallAfter: Double? = nil) {
        self.nodes = nodes
        self.grace = grace
        self.stallAfter = stallAfter ?? max(grace * 2, 5)
        tallies = Dictionary(uniqueKeysWithValues: nodes.map { ($0, Tally()) })
    }

    /// Canary `seq` was published through `via` at `at`. Seqs are published in increasing order.
    public mutating func published(seq: Int, via: String, at: Double) {
        outstanding[seq] = (at, via)
        lastPublished = at
        for node in nodes { tallies[node]!.published += 1 }
    }

    /// Canary `seq` was not published after all (the HTTP API refused it, or the request failed): it is expected
    /// nowhere, unless it is published again. Should the failed publish land after all, its arrivals (told apart
    /// by the `via` given to ``received(seq:via:node:at:)``) are neither counted nor duplicates.
    public mutating func cancel(seq: Int) {
        guard let sent = outstanding.removeValue(forKey: seq) else { return }
        failedAttempts[seq, default: []].insert(sent.via)
        // Kept for the last 1,024 seqs (a failed publish lands within seconds, if at all).
        if failedAttempts.count > 2048 { failedAttempts = failedAttempts.filter { $0.key > seq - 1024 } }
        lastPublished = outstanding.values.map(\.at).max()
        for node in nodes {
            tallies[node]!.published -= 1
            if tallies[node]!.seen.remove(seq) != nil { tallies[node]!.received -= 1 }
        }
    }

    /// `node` received canary `seq` at `at`; `via`: the node the event says it was published through (without
    /// it, an arrival of a failed publish of a seq published again cannot be told from a duplicate).
    public mutating func received(seq: Int, via: String? = nil, node: String, at: Double) -> [Finding] {
        guard var t = tallies[node] else { return [] }
        if let failed = failedAttempts[seq],
            via.map(failed.contains) ?? (outstanding[seq] == nil && !t.seen.contains(seq))
        {
            return [.landedAfterError(node: node, seq: seq, via: via ?? failed.sorted()[0])]
        }
        defer { tallies[node] = t }
        var findings: [Finding] = []
        t.lastArrival = at
        if t.stalled {
            t.stalled = false
            findings.append(.resumed(node: node))
        }
        if let missed = t.missed.removeValue(forKey: seq) {
            // Counted as missed, then it came: late, not lost.
            if missed.away { t.away -= 1 } else { t.lost -= 1 }
            t.received += 1
            t.seen.insert(seq)
            findings.append(.late(node: node, seq: seq, latencyMs: (at - missed.at) * 1000))
            return findings
        }
        if t.seen.contains(seq) || seq < horizon {
            t.duplicated += 1
            findings.append(.duplicated(node: node, seq: seq))
            return findings
        }
        guard let sent = outstanding[seq] else { return findings }  // not a canary of this run
        t.seen.insert(seq)
        t.received += 1
        let ms = max(0, (at - sent.at) * 1000)
        t.latencies.add(ms)
        t.window.add(ms)
        if let highest = t.highest, seq < highest {
            t.reordered += 1
            findings.append(.reordered(node: node, seq: seq, after: highest))
        }
        t.highest = max(t.highest ?? seq, seq)
        return findings
    }

    /// `node`'s subscription came up (`true`: subscribed) or went down (`false`: disconnected, reconnecting).
    public mutating func availability(node: String, available: Bool, at: Double) -> [Finding] {
        guard var t = tallies[node], t.available != available else { return [] }
        defer { tallies[node] = t }
        t.available = available
        if available {
            if let since = t.downSince { t.downIntervals.append((since, at)) }
            t.downSince = nil
            t.lastArrival = at
            if t.wasAvailable {
                t.reconnects += 1
                t.wasAvailable = true
                return [.reconnected(node: node)]
            }
            t.wasAvailable = true
            return []
        }
        t.downSince = at
        t.stalled = false
        return [.wentAway(node: node)]
    }

    /// Settles the canaries whose grace time has passed at `now` (misses), and notices stalls.
    public mutating func check(now: Double) -> [Finding] {
        var findings: [Finding] = []
        for seq in outstanding.keys.sorted() where outstanding[seq]!.at + grace <= now {
            findings += settle(seq)
        }
        for node in nodes {
            var t = tallies[node]!
            if t.available, !t.stalled, let published = lastPublished, let last = t.lastArrival,
                published > last, now - last >= stallAfter
            {
                t.stalled = true
                findings.append(.stalled(node: node, seconds: now - last))
            }
            tallies[node] = t
        }
        return findings
    }

    /// Settles every canary still waiting (the end of a run): what has not arrived is missed.
    public mutating func finish(now: Double) -> [Finding] {
        var findings: [Finding] = []
        for seq in outstanding.keys.sorted() { findings += settle(seq, end: now) }
        return findings
    }

    private mutating func settle(_ seq: Int, end: Double? = nil) -> [Finding] {
        guard let sent = outstanding.removeValue(forKey: seq) else { return [] }
        var findings: [Finding] = []
        let windowEnd = end.map { max($0, sent.at) } ?? sent.at + grace
        for node in nodes {
            var t = tallies[node]!
            if !t.seen.contains(seq) {
                let downNow = t.downSince.map { $0 <= windowEnd } ?? false
                let wasDown = t.downIntervals.contains { $0.from <= windowEnd && $0.to >= sent.at }
                let away = !t.wasAvailable || downNow || wasDown
                if away { t.away += 1 } else { t.lost += 1 }
                t.missed[seq] = (away, sent.at)
                findings.append(.missed(node: node, seq: seq, via: sent.via, away: away))
            }
            t.seen.remove(seq)
            // Old down intervals no longer matter once every canary they could touch is settled.
            t.downIntervals.removeAll { $0.to < sent.at - grace }
            tallies[node] = t
        }
        horizon = max(horizon, seq + 1)
        return findings
    }

    /// The latencies of `node` since the last call, and starts a new window.
    public mutating func takeWindow(node: String) -> LatencySamples {
        guard var t = tallies[node] else { return LatencySamples() }
        defer { tallies[node] = t }
        let window = t.window
        t.window = LatencySamples()
        return window
    }

    /// Whether every node received every canary exactly once (misses while away do not count).
    public var ok: Bool { tallies.values.allSatisfy { $0.lost == 0 && $0.duplicated == 0 } }
}

/// Latency samples (ms) and their percentiles; past ``CanaryAudit/latencyCapacity`` every other sample is
/// dropped (the percentiles stay representative).
public struct LatencySamples: Sendable, Hashable {
    public private(set) var values: [Double] = []
    private var stride = 1
    private var skipped = 0

    public init() {}

    public mutating func add(_ ms: Double) {
        skipped += 1
        guard skipped >= stride else { return }
        skipped = 0
        values.append(ms)
        if values.count >= CanaryAudit.latencyCapacity {
            values = values.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            stride *= 2
        }
    }

    public var isEmpty: Bool { values.isEmpty }

    /// The `p`-th percentile (0...100), nearest rank; `nil` without samples.
    public func percentile(_ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}
