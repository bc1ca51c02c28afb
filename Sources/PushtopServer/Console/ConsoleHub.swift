import Foundation
import PusherProtocol
import Synchronization

/// An app's debug feed on this node: the registry of its listeners and the fan-out of its rows.
///
/// Producers (the hub, the HTTP API, the webhook senders) call ``emit(_:)`` with a closure that builds the row:
/// with nobody listening (on this node or, in a cluster, on any node) that costs one atomic load and the row is
/// never built. With listeners, a row goes into each listener's bounded queue (``ConsoleListener``) and, while
/// another node listens, into the batch this node forwards to the cluster (``ConsoleClusterLink``). A producer
/// never waits for a listener.
package final class ConsoleHub: Sendable {
    /// Rows a listener's queue holds before the oldest are dropped (and a `gap` reported).
    package static let listenerCapacity = 10_000
    /// Rows waiting to be forwarded to the cluster at most; past it the oldest go.
    static let forwardCapacity = 10_000
    /// How long another node's "console listening" announcement keeps this node forwarding.
    static let remoteListeningTTL: Duration = .seconds(10)

    /// The node id of a server that is not in a cluster: the host's name.
    static let standaloneNodeID: String = ProcessInfo.processInfo.hostName

    package let appID: String
    /// The node id rows are tagged with (`serve --node-id`; a random name when none was given).
    package let nodeID: String
    /// Whether the app is served by a cluster (the hello's `cluster`).
    let clustered: Bool

    private struct State {
        var listeners: [ObjectIdentifier: ConsoleListener] = [:]
        /// Until when rows are forwarded to the cluster (another node listens); `nil`: not forwarded.
        var remoteUntil: ContinuousClock.Instant?
        var outgoing: [ConsoleRow] = []
    }

    /// Whether anyone listens (here, or elsewhere in the cluster): the one load a hot path pays.
    private let active = Atomic<Bool>(false)
    private let state = Mutex(State())
    /// Rings when the first rows of a forwarded batch are queued, or when the first local listener arrives.
    let bell: AsyncStream<Void>
    private let bellContinuation: AsyncStream<Void>.Continuation

    package init(appID: String, nodeID: String, clustered: Bool) {
        self.appID = appID
        self.nodeID = nodeID
        self.clustered = clustered
        (bell, bellContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether any row would reach anyone.
    @inline(__always) package var isActive: Bool { active.load(ordering: .relaxed) }

    /// Builds and posts a row, only when someone listens.
    @inline(__always) package func emit(_ make: () -> ConsoleRow) {
        guard isActive else { return }
        post(make())
    }

    /// Posts a row made on this node: it is tagged with the node and app, queued for each local listener and,
    /// while another node listens, for the cluster.
    package func post(_ row: ConsoleRow) {
        var row = row
        row.node = nodeID
        row.appID = appID
        row.source = .server
        let ring = state.withLock { state -> Bool in
            for listener in state.listeners.values { listener.push(row) }
            guard let until = state.remoteUntil else { return false }
            guard ContinuousClock.now < until else {
                state.remoteUntil = nil
                state.outgoing.removeAll()
                active.store(!state.listeners.isEmpty, ordering: .relaxed)
                return false
            }
            state.outgoing.append(row)
            if state.outgoing.count > Self.forwardCapacity { state.outgoing.removeFirst() }
            return state.outgoing.count == 1
        }
        if ring { bellContinuation.yield() }
    }

    /// Rows another node forwarded: to this node's listeners only (never forwarded again).
    func receive(forwarded rows: [ConsoleRow]) {
        state.withLock { state in
            for row in rows {
                for listener in state.listeners.values { listener.push(row) }
            }
        }
    }

    /// Another node has a listener: forward this node's rows for the next ``remoteListeningTTL``.
    func remoteListening(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.remoteUntil = now + Self.remoteListeningTTL
            active.store(true, ordering: .relaxed)
        }
    }

    /// Takes the rows waiting to be forwarded.
    func takeOutgoing() -> [ConsoleRow] {
        state.withLock { state in
            defer { state.outgoing = [] }
            return state.outgoing
        }
    }

    /// Whether this node has a listener of its own (the cluster link announces it).
    var hasLocalListeners: Bool { state.withLock { !$0.listeners.isEmpty } }

    /// Adds a listener (of some types, or all); remove it with ``remove(_:)``.
    package func addListener(types: Set<ConsoleRowType>? = nil, capacity: Int = ConsoleHub.listenerCapacity)
        -> ConsoleListener
    {
        let listener = ConsoleListener(types: types, capacity: capacity, node: nodeID, appID: appID)
        let first = state.withLock { state -> Bool in
            state.listeners[ObjectIdentifier(listener)] = listener
            active.store(true, ordering: .relaxed)
            return state.listeners.count == 1
        }
        if first { bellContinuation.yield() }
        return listener
    }

    /// Removes a listener and ends its feed.
    package func remove(_ listener: ConsoleListener) {
        state.withLock { state in
            state.listeners[ObjectIdentifier(listener)] = nil
            active.store(!state.listeners.isEmpty || state.remoteUntil != nil, ordering: .relaxed)
        }
        listener.finish()
    }

    /// Ends every listener's feed (the server stops); the rows already queued are still written.
    package func finishAll() {
        let listeners = state.withLock { state in
            defer { state.listeners = [:] }
            active.store(state.remoteUntil != nil, ordering: .relaxed)
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
        bellContinuation.finish()
    }
}
