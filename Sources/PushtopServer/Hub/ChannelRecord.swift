import PusherProtocol

/// A channel's live state in the hub: its subscribers and, for presence channels, its members.
struct ChannelRecord {
    /// Subscribers and where to send their frames.
    var subscribers: [ConnectionID: ConnectionOutlet] = [:]
    /// Presence members by user id (a user with several connections is one member).
    var members: [String: MemberRecord] = [:]
    /// User ids in the order they joined.
    var memberOrder: [String] = []
    /// In a cluster: the members this node's sockets were told of (rosters, `member_added`, `member_removed`), to
    /// tell them what changed elsewhere while Redis was away.
    var toldMemberIDs: Set<String> = []

    struct MemberRecord {
        var info: JSONValue?
        var connections: Set<ConnectionID>
    }

    /// The `presence` object of `subscription_succeeded`: `ids`, `hash`, `count`.
    var presenceJSON: JSONValue {
        var hash: [String: JSONValue] = [:]
        for (id, member) in members { hash[id] = member.info ?? .null }
        return [
            "ids": .array(memberOrder.map { .string($0) }), "hash": .object(hash),
            "count": .number(Double(members.count)),
        ]
    }
}

/// What a cache channel remembers: its last event, for subscribers that arrive later.
struct CachedEvent {
    var name: String
    var data: String
    var at: ContinuousClock.Instant
}

/// Channel-name helpers the hub needs beyond ``ChannelKind``.
enum ChannelNames {
    /// Cache channels remember their last event: `cache-`, `private-cache-`, `private-encrypted-cache-`,
    /// `presence-cache-`.
    static func isCache(_ name: String) -> Bool {
        name.hasPrefix("cache-") || name.hasPrefix("private-cache-") || name.hasPrefix("private-encrypted-cache-")
            || name.hasPrefix("presence-cache-")
    }
}
