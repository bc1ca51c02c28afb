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

    /// The demo's channels, names and rates.
    public init() {}
}
