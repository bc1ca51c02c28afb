/// The rules of a node's link to its cluster as a value: inputs in, actions out.
///
/// ``RedisBackplane`` owns one and feeds it what happens (its two Redis connections going up and down, Redis'
/// answers to registrations and heartbeats, timers, start and stop); it performs the actions returned, in order.
/// No connection, task or clock lives here, so every rule is tested directly: "given registered, when the
/// heartbeat says this node's key had expired, then register again".
///
/// The link is up when both connections are: the one for commands (scripts, publishes) and the subscriber with
/// the bus subscribed. Then the hub is told (``Action/announceUp``) and hands this node's state, which is
/// registered in place of what the cluster knew of it; until that registration succeeded the node is
/// `reconnecting`. Each registration has an attempt number; answers and timers of an older one are ignored.
struct ClusterLinkStateMachine: Sendable {
    /// What happens to the link.
    enum Input: Sendable, Hashable {
        /// The backplane starts carrying messages: the heartbeat begins, and the start waits a while for the link.
        case started
        /// The connection for commands went up or down.
        case commandsConnection(up: Bool)
        /// The subscriber went up (with the bus subscribed) or down.
        case busSubscription(up: Bool)
        /// The hub handed this node's state to register (after ``Action/announceUp`` or ``Action/reregister(_:)``);
        /// `presenceChannels` are the presence channels in it.
        case registrationRequested(presenceChannels: Set<String>)
        /// Redis registered the state of attempt `attempt`.
        case registrationSucceeded(attempt: Int)
        /// Registration `attempt` failed (an error, or a timeout on a loaded machine).
        case registrationFailed(attempt: Int)
        /// Redis answered a heartbeat: whether this node's key was still alive, and the nodes whose key expired.
        case heartbeatAnswered(wasAlive: Bool, expiredNodes: [String])
        case timerFired(Timer)
        /// The server stops.
        case stopRequested
    }

    /// What the backplane must do, in order.
    enum Action: Sendable, Hashable {
        /// Presence and counts are the cluster's now: tell the hub, which hands its state to register.
        case announceUp
        /// Redis is away: the hub decides alone until it is back.
        case announceDown
        /// Refresh this node's heartbeat key, and ask which nodes' keys expired.
        case sendHeartbeat
        /// Register the state the hub handed, in place of what the cluster knew of this node.
        case register(attempt: Int)
        /// Ask the hub for its state again, to register it.
        case reregister(Reason)
        /// Remove a dead node's connections (members, counts) from the registry.
        case removeMembers(ofNode: String)
        /// Read the cluster's rosters of `channels` and tell the hub who joined; with `removing`, who left too.
        case readRosters(Set<String>, removing: Bool)
        case startTimer(Timer, after: Duration)
        /// The start is over: the link is up (`joined`), or it did not come up in time and the node serves alone
        /// until it does.
        case finishStart(joined: Bool)
        /// Remove this node from the cluster: its presence, counts, heartbeat and name.
        case unregister
        /// Close both connections: the link's work is over.
        case disconnect
    }

    /// Why the hub is asked for its state again.
    enum Reason: Sendable, Hashable {
        /// The last registration failed; it is tried again while the link is up.
        case registrationFailed
        /// This node's heartbeat key had expired (a long pause): the others may have removed its members.
        case heartbeatExpired
    }

    /// What the link waits for.
    enum Timer: Sendable, Hashable {
        /// The next heartbeat.
        case heartbeat
        /// The end of the wait at start.
        case startDeadline
        /// Registration `attempt` failed: try again.
        case registrationRetry(attempt: Int)
        /// Read the rosters again after registration `attempt`, to tell who left elsewhere while this node was away.
        case rosterRecheck(attempt: Int)
    }

    /// The timing of the link.
    struct Configuration: Sendable, Hashable {
        /// This node's name (an expired key of its own is not a dead peer).
        var nodeID: String
        /// Between heartbeats.
        var heartbeatInterval: Duration
        /// From a registration to the second reading of the rosters, which tells who left: 1.25 × the node timeout,
        /// by which every live node has registered again (after a Redis restart the registry starts empty, and a
        /// member whose node had not registered yet would flap out and back in).
        var rosterGrace: Duration
        /// From a failed registration to the next.
        var registrationRetryDelay: Duration = .milliseconds(250)
        /// How long the start waits for the link.
        var startTimeout: Duration = .seconds(3)

        /// The timing of `cluster`.
        init(_ cluster: ClusterConfiguration) {
            nodeID = cluster.nodeID
            heartbeatInterval = .milliseconds(Int64(cluster.heartbeatInterval * 1000))
            rosterGrace = .milliseconds(Int64(cluster.nodeTimeout * 1250))
        }
    }

    private enum Phase {
        case idle, running, stopped
    }

    /// The timing in force.
    let configuration: Configuration
    /// Whether the connection for commands is up.
    private(set) var commandsUp = false
    /// Whether the subscriber is up with the bus subscribed.
    private(set) var busSubscribed = false
    /// Whether the hub was told the link is up.
    private(set) var announcedUp = false
    /// Whether the link was ever up (a later connection is a reconnection).
    private(set) var wasUp = false
    /// Whether the registration after the last (re)connection succeeded.
    private(set) var registered = false
    /// The number of the last registration asked for.
    private(set) var attempt = 0
    private var succeededAttempt = 0
    private var presenceChannels: Set<String> = []
    private var startFinished = false
    private var phase = Phase.idle

    /// A link that has not started, both connections down.
    init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Whether both connections are up.
    var isUp: Bool { commandsUp && busSubscribed }

    /// How the link stands, for `GET /health` and `/metrics`.
    var health: ClusterHealth {
        if isUp { return registered ? .up : .reconnecting }
        return wasUp ? .reconnecting : .down
    }

    /// Feeds one input and returns what to do, in order.
    mutating func handle(_ input: Input) -> [Action] {
        guard phase != .stopped else { return [] }
        switch input {
        case .started:
            guard phase == .idle else { return [] }
            phase = .running
            return [
                .sendHeartbeat, .startTimer(.heartbeat, after: configuration.heartbeatInterval),
                .startTimer(.startDeadline, after: configuration.startTimeout),
            ] + linkChanged()
        case .commandsConnection(let up):
            commandsUp = up
            return linkChanged()
        case .busSubscription(let up):
            busSubscribed = up
            return linkChanged()
        case .registrationRequested(let channels):
            attempt += 1
            presenceChannels = channels
            // The heartbeat first: registered state always belongs to a node the others watch.
            return [.sendHeartbeat, .register(attempt: attempt)]
        case .registrationSucceeded(let n):
            return registrationSucceeded(n)
        case .registrationFailed(let n):
            guard n == attempt, announcedUp else { return [] }
            return [.startTimer(.registrationRetry(attempt: n), after: configuration.registrationRetryDelay)]
        case .heartbeatAnswered(let wasAlive, let expiredNodes):
            var actions = expiredNodes.filter { $0 != configuration.nodeID }.map { Action.removeMembers(ofNode: $0) }
            if !wasAlive, registered { actions.append(.reregister(.heartbeatExpired)) }
            return actions
        case .timerFired(let timer):
            return timerFired(timer)
        case .stopRequested:
            phase = .stopped
            return (commandsUp ? [.unregister] : []) + [.disconnect]
        }
    }

    // MARK: - Transitions

    /// Tells the hub when the link as a whole went up or down (once per change, and only once started).
    private mutating func linkChanged() -> [Action] {
        guard phase == .running, isUp != announcedUp else { return [] }
        announcedUp = isUp
        if isUp {
            wasUp = true
            return [.announceUp]
        }
        registered = false
        return [.announceDown]
    }

    private mutating func registrationSucceeded(_ n: Int) -> [Action] {
        // An older registration: a newer one, with a newer state, is on its way. A link that went down meanwhile
        // registers again when it is back.
        guard n == attempt, announcedUp else { return [] }
        succeededAttempt = n
        registered = true
        var actions: [Action] = []
        if !startFinished, isUp {
            startFinished = true
            actions.append(.finishStart(joined: true))
        }
        if !presenceChannels.isEmpty {
            actions.append(.readRosters(presenceChannels, removing: false))
            actions.append(.startTimer(.rosterRecheck(attempt: n), after: configuration.rosterGrace))
        }
        return actions
    }

    private mutating func timerFired(_ timer: Timer) -> [Action] {
        switch timer {
        case .heartbeat:
            return [.sendHeartbeat, .startTimer(.heartbeat, after: configuration.heartbeatInterval)]
        case .startDeadline:
            guard !startFinished else { return [] }
            startFinished = true
            return [.finishStart(joined: false)]
        case .registrationRetry(let n):
            // A link that went down registers again when it is back.
            guard n == attempt, announcedUp, succeededAttempt != n else { return [] }
            return [.reregister(.registrationFailed)]
        case .rosterRecheck(let n):
            guard n == attempt, announcedUp, registered, !presenceChannels.isEmpty else { return [] }
            return [.readRosters(presenceChannels, removing: true)]
        }
    }
}
