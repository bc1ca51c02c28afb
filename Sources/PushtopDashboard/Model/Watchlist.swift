import PusherProtocol

/// The signed-in user's watchlist as the members pane shows it: each watched user id, online or not.
public struct Watchlist: Sendable, Hashable {
    /// Watched user ids, sorted; users reported online but not in the signed list are added.
    public private(set) var users: [String]
    public private(set) var online: Set<String> = []

    public init(watched: [String] = []) {
        users = Array(Set(watched)).sorted()
    }

    /// Whether there is anything to show.
    public var isEmpty: Bool { users.isEmpty }

    public mutating func apply(_ change: WatchlistChange) {
        for id in change.userIDs {
            switch change.status {
            case .online: online.insert(id)
            case .offline: online.remove(id)
            }
            if !users.contains(id) {
                users.append(id)
                users.sort()
            }
        }
    }
}
