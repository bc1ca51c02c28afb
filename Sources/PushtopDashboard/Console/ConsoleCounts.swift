import PusherProtocol

/// Connections open now and channels occupied, per source: the latest ``ConsoleSnapshot`` (a feed's `hello`)
/// plus every row since, applied in order (connection +1, disconnection −1, occupied, vacated). A `gap` (rows a
/// slow listener missed) or rows the dashboard dropped make a tally approximate until the source's next snapshot.
public struct ConsoleCounts: Sendable, Hashable {
    /// One source's tally.
    public struct Tally: Sendable, Hashable {
        /// The ``ConsoleSnapshot/source`` it came from.
        public var source: String
        /// The node that answered (rows of other nodes do not change it, unless ``cluster``).
        public var node: String?
        /// Whether the snapshot was cluster-wide (`serve --redis`): every node's rows change it.
        public var cluster: Bool
        public var connections: Int
        public var occupied: Set<String>
        /// The snapshot's time: rows from before it are already in it.
        public var since: Int64
        /// Rows were missed since the snapshot: the counts may be off.
        public var approximate = false

        /// Whether a row of `node` changes this tally.
        func covers(_ rowNode: String?) -> Bool {
            cluster || node == nil || rowNode == nil || rowNode == node
        }
    }

    /// Tallies in the order their sources first sent a snapshot.
    public private(set) var tallies: [Tally] = []

    public init() {}

    /// Starts a source's tally afresh (a new `hello`: the source reconnected or opened).
    public mutating func apply(_ snapshot: ConsoleSnapshot) {
        let tally = Tally(
            source: snapshot.source, node: snapshot.node, cluster: snapshot.cluster,
            connections: snapshot.connections ?? 0, occupied: Set(snapshot.occupiedChannels ?? []),
            since: snapshot.timeMs)
        if let i = tallies.firstIndex(where: { $0.source == snapshot.source }) {
            tallies[i] = tally
        } else {
            tallies.append(tally)
        }
    }

    /// Applies one row, in the order rows happened.
    public mutating func apply(_ row: ConsoleRow) {
        guard !tallies.isEmpty, row.source != .webhook else { return }
        for i in tallies.indices where tallies[i].covers(row.node) && row.timeMs >= tallies[i].since {
            switch row.type {
            case .connection: tallies[i].connections += 1
            case .disconnection: tallies[i].connections = max(0, tallies[i].connections - 1)
            case .occupied: if let c = row.channel { tallies[i].occupied.insert(c) }
            case .vacated: if let c = row.channel { tallies[i].occupied.remove(c) }
            case .gap: tallies[i].approximate = true
            default: break
            }
        }
    }

    /// Rows were lost before they reached the console: every tally may be off.
    public mutating func lost() {
        for i in tallies.indices { tallies[i].approximate = true }
    }

    /// The counts to show: the one tally, or the sum over tallies of distinct nodes (a cluster-wide tally
    /// already holds every node's). `nil` without a snapshot.
    public var total: (connections: Int, channels: Int, approximate: Bool)? {
        guard !tallies.isEmpty else { return nil }
        if let cluster = tallies.first(where: \.cluster) {
            return (cluster.connections, cluster.occupied.count, cluster.approximate)
        }
        var channels = Set<String>()
        for t in tallies { channels.formUnion(t.occupied) }
        return (
            tallies.reduce(0) { $0 + $1.connections }, channels.count, tallies.contains(where: \.approximate)
        )
    }
}
