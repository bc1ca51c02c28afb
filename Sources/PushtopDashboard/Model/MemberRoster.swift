import PusherProtocol

/// A presence channel's members as the members pane shows them: sorted by user id, with recent joins and
/// leaves kept for a moment so they can be highlighted.
public struct MemberRoster: Sendable, Hashable {
    public struct Row: Sendable, Hashable {
        public var member: PresenceMember
        /// When the member joined (after the initial roster), for the highlight.
        public var joinedAt: Double?
        /// When the member left; the row disappears ``MemberRoster/highlightSeconds`` later.
        public var leftAt: Double?
    }

    /// How long a join or a leave stays highlighted.
    public static let highlightSeconds = 2.0

    public var me: String?
    /// Rows sorted by user id.
    public private(set) var rows: [Row] = []

    public init(snapshot: PresenceSnapshot?) {
        me = snapshot?.me
        rows = (snapshot?.members ?? []).map { Row(member: $0) }.sorted { $0.member.userID < $1.member.userID }
    }

    /// Members present (not counting those shown leaving).
    public var count: Int { rows.reduce(0) { $0 + ($1.leftAt == nil ? 1 : 0) } }

    /// Adds a member or overwrites their info (a user id is one member).
    public mutating func add(_ member: PresenceMember, at now: Double) {
        let i = insertionIndex(member.userID)
        if i < rows.count, rows[i].member.userID == member.userID {
            rows[i] = Row(member: member, joinedAt: now, leftAt: nil)
        } else {
            rows.insert(Row(member: member, joinedAt: now, leftAt: nil), at: i)
        }
    }

    public mutating func remove(userID: String, at now: Double) {
        let i = insertionIndex(userID)
        if i < rows.count, rows[i].member.userID == userID { rows[i].leftAt = now }
    }

    /// Drops rows whose leave highlight is over and ends join highlights.
    public mutating func expire(at now: Double) -> Bool {
        var changed = false
        let before = rows.count
        rows.removeAll { $0.leftAt.map { now - $0 >= Self.highlightSeconds } ?? false }
        if rows.count != before { changed = true }
        for i in rows.indices {
            if let j = rows[i].joinedAt, now - j >= Self.highlightSeconds {
                rows[i].joinedAt = nil
                changed = true
            }
        }
        return changed
    }

    private func insertionIndex(_ userID: String) -> Int {
        var lo = 0, hi = rows.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if rows[mid].member.userID < userID { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
