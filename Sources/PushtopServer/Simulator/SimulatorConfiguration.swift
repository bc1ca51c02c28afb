/// What the simulator publishes and how often.
public struct SimulatorConfiguration: Sendable, Hashable {
    /// The presence channel simulated members join and leave.
    public var presenceChannel: String = "presence-lobby"
    /// Price ticks (JSON) a few times a second.
    public var tickerChannel: String = "ticker"
    /// Chat messages from the simulated members.
    public var chatChannel: String = "chat"
    /// An encrypted channel carrying secretbox-encrypted messages.
    public var encryptedChannel: String = "private-encrypted-vault"
    /// Names the simulated members take.
    public var memberNames: [String] = ["Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances"]
    /// Members online at most (at least one stays).
    public var maxMembers: Int = 5
    /// Seconds between price ticks.
    public var tickInterval: Double = 0.4
    /// Seconds between chat messages.
    public var chatInterval: Double = 2.5
    /// Seconds between a member joining or leaving.
    public var membershipInterval: Double = 3
    /// Seconds between encrypted messages.
    public var encryptedInterval: Double = 4
    /// Members who join at start.
    public var initialMembers: Int = 3
    /// Seconds after start when members stop joining and leaving (`nil`: never), so that a test can compare
    /// counts once the roster holds still.
    public var membershipDuration: Double?

    /// Churn on the presence channel: members join and leave `changesPerSecond` times a second, from a pool of
    /// `pool` names (`user-001`...), about half of them online at any time (at most 80 %). Starts with half
    /// the pool online. Used to test that dashboards judge rosters right while they change.
    public mutating func churn(changesPerSecond: Double, pool: Int = 100, duration: Double? = nil) {
        membershipDuration = duration
        guard changesPerSecond > 0, pool > 0 else { return }
        memberNames = (1...pool).map { n in
            "user-" + String(repeating: "0", count: max(0, 3 - String(n).count)) + String(n)
        }
        maxMembers = max(1, pool * 4 / 5)
        initialMembers = pool / 2
        membershipInterval = 1 / changesPerSecond
    }

    /// Price ticks on ``tickerChannel`` at `eventsPerSecond` events a second.
    public mutating func eventRate(_ eventsPerSecond: Double) {
        guard eventsPerSecond > 0 else { return }
        tickInterval = 1 / eventsPerSecond
    }

    /// The demo's channels, names and rates.
    public init() {}
}
