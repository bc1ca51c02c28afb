import PusherProtocol
import Synchronization

/// Where the debug console's sources (a `pushtop serve` debug feed per node, a webhook receiver) hand their rows
/// and their state to the dashboard. Call ``post(_:)`` from any thread; the dashboard takes everything waiting at
/// its next frame.
///
/// Bounded like ``DashboardFeed``: beyond ``capacity`` rows waiting, new ones are dropped and counted, and the
/// console shows the count.
public final class ConsoleFeed: Sendable {
    /// Rows held between two frames before new ones are dropped.
    public let capacity: Int
    private let pending = Mutex(Pending())

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Rows, in the order they happened.
    public func post(_ rows: [ConsoleRow]) {
        guard !rows.isEmpty else { return }
        pending.withLock { p in
            let taken = min(max(0, capacity - p.rows.count), rows.count)
            p.rows.append(contentsOf: rows.prefix(taken))
            p.dropped += rows.count - taken
        }
    }

    /// The state of one source (replaces the source's earlier state, matched by ``ConsoleSourceStatus/name``).
    public func update(_ source: ConsoleSourceStatus) {
        pending.withLock { p in
            p.sources.removeAll { $0.name == source.name }
            p.sources.append(source)
            p.sourcesChanged = true
        }
    }

    /// What a source knew when it opened (a feed's `hello`): the counts the console then keeps up to date from rows.
    public func post(snapshot: ConsoleSnapshot) {
        pending.withLock { p in
            p.snapshots.append(snapshot)
        }
    }

    /// What waits for the loop.
    struct Pending {
        var rows: [ConsoleRow] = []
        var snapshots: [ConsoleSnapshot] = []
        var dropped = 0
        /// Every source's latest state (kept across takes).
        var sources: [ConsoleSourceStatus] = []
        var sourcesChanged = false
    }

    /// Takes what waits as one ``ConsoleUpdate`` (`nil` when nothing does).
    func takeUpdate() -> ConsoleUpdate? {
        let p = take()
        let update = ConsoleUpdate(
            rows: p.rows, snapshots: p.snapshots, dropped: p.dropped, sources: p.sourcesChanged ? p.sources : nil)
        return update.isEmpty ? nil : update
    }

    /// Takes the rows waiting, and the sources when they changed.
    func take() -> Pending {
        pending.withLock { p in
            let taken = p
            p.rows = []
            p.snapshots = []
            p.dropped = 0
            p.sourcesChanged = false
            return taken
        }
    }
}

/// One source of console rows, as the console's status line shows it.
public struct ConsoleSourceStatus: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// A `pushtop serve` node's debug feed.
        case serverFeed = "feed"
        /// pushtop's webhook receiver (`--webhook-listen`).
        case webhooks
    }

    public enum State: Sendable, Hashable {
        case connecting
        /// Rows flow (a feed is open; the webhook receiver listens).
        case live
        /// The source failed and retries; the text says why.
        case failed(String)
        /// The server offers no such source (not a `pushtop serve`); the text says what to do instead.
        case unavailable(String)
    }

    /// A stable name: the node (`127.0.0.1:6001`) or `webhooks on 127.0.0.1:9000`.
    public var name: String
    public var kind: Kind
    public var state: State

    public init(name: String, kind: Kind, state: State) {
        self.name = name
        self.kind = kind
        self.state = state
    }
}

/// What a source knew when it opened: a `pushtop serve` feed's `hello` (`event: hello` on the stream).
public struct ConsoleSnapshot: Sendable, Hashable {
    /// The source's ``ConsoleSourceStatus/name``.
    public var source: String
    /// The node that answered.
    public var node: String?
    public var appID: String?
    /// Connections open for the app (the cluster's when the server runs with `--redis`).
    public var connections: Int?
    /// The app's occupied channels, as the HTTP API lists them.
    public var occupiedChannels: [String]?
    public var timeMs: Int64
    /// Whether the counts are the cluster's (the `hello`'s `cluster`: `serve --redis`): then every node's rows
    /// change them, else only the answering node's.
    public var cluster: Bool

    public init(
        source: String, node: String? = nil, appID: String? = nil, connections: Int? = nil,
        occupiedChannels: [String]? = nil, timeMs: Int64, cluster: Bool = false
    ) {
        self.cluster = cluster
        self.source = source
        self.node = node
        self.appID = appID
        self.connections = connections
        self.occupiedChannels = occupiedChannels
        self.timeMs = timeMs
    }
}
