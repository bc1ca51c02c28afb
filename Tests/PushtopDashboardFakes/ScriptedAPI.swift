/// An HTTP API without a network, for the preview and tests: a fixed list of occupied channels, and a
/// presence roster that differs from the demo's on purpose (`bob` is a ghost, `mallory` is missing).
import PushtopDashboard

public struct ScriptedAPI: AppAPI {
    public init() {}

    public func occupiedChannels() async throws -> [OccupiedChannel] {
        [
            OccupiedChannel(name: "market-data", subscriptionCount: 12),
            OccupiedChannel(name: "private-orders", subscriptionCount: 3),
            OccupiedChannel(name: "presence-lobby", subscriptionCount: 6, userCount: 6),
            OccupiedChannel(name: "news-room", subscriptionCount: 40),
            OccupiedChannel(name: "private-audit", subscriptionCount: 1),
        ]
    }

    public func presenceUserIDs(channel: String) async throws -> [String] {
        ["you", "alice", "li", "zoe", "mallory"]
    }
}
