import PusherProtocol

/// The members of one presence channel, keyed by user id.
///
/// A user with several connections is one member: adding an existing id overwrites its info instead of
/// adding a duplicate, and removing an unknown id does nothing. Insertion order is kept for display.
public struct PresenceRoster: Sendable, Hashable {
    /// The user id of this client's own member, when known.
    public private(set) var me: String?
    private var order: [String] = []
    private var info: [String: JSONValue?] = [:]

    /// An empty roster; `me` is this client's user id, when known.
    public init(me: String? = nil) {
        self.me = me
    }

    /// Replaces the roster with `pusher_internal:subscription_succeeded`'s `presence` object
    /// (`{"ids":[…], "hash":{id: info}, "count":n}`).
    public mutating func replace(withPresence presence: JSONValue?, me: String?) {
        self.me = me
        order = []
        info = [:]
        let hash = presence?["hash"]?.objectValue ?? [:]
        var ids = presence?["ids"]?.arrayValue?.compactMap { Self.userID(from: $0) } ?? []
        if ids.isEmpty { ids = hash.keys.sorted() }
        for id in ids {
            add(PresenceMember(userID: id, userInfo: hash[id]))
        }
    }

    /// Adds or updates a member; returns `true` when the user id was new.
    @discardableResult
    public mutating func add(_ member: PresenceMember) -> Bool {
        if info.updateValue(member.userInfo, forKey: member.userID) == nil {
            order.append(member.userID)
            return true
        }
        return false
    }

    /// Removes a member; returns it when it was present.
    @discardableResult
    public mutating func remove(userID: String) -> PresenceMember? {
        guard let removed = info.removeValue(forKey: userID) else { return nil }
        order.removeAll { $0 == userID }
        return PresenceMember(userID: userID, userInfo: removed)
    }

    /// Removes every member (the connection was lost: the next subscription brings a fresh roster).
    public mutating func removeAll() {
        order = []
        info = [:]
    }

    /// How many members there are.
    public var count: Int { order.count }

    /// The members, in the order they joined.
    public var members: [PresenceMember] {
        order.map { PresenceMember(userID: $0, userInfo: info[$0] ?? nil) }
    }

    /// The member with this user id, if present.
    public func member(_ userID: String) -> PresenceMember? {
        guard let value = info[userID] else { return nil }
        return PresenceMember(userID: userID, userInfo: value)
    }

    /// The roster as a value for events: this client's id and the members.
    public var snapshot: PresenceSnapshot {
        PresenceSnapshot(me: me, members: members)
    }

    /// A user id from JSON: a string, or a number written as JSON.
    static func userID(from value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .number: return value.jsonString
        default: return nil
        }
    }
}
