/// A member of a presence channel: a user id and the info the app attached to it.
public struct PresenceMember: Sendable, Hashable {
    /// The member's user id, as the auth endpoint's `channel_data` gave it.
    public var userID: String
    /// The member's `user_info`, when there is one.
    public var userInfo: JSONValue?

    /// A member with its id and optional info.
    public init(userID: String, userInfo: JSONValue? = nil) {
        self.userID = userID
        self.userInfo = userInfo
    }
}

/// A presence channel's roster at the moment of subscription: the members and which one is this client.
public struct PresenceSnapshot: Sendable, Hashable {
    /// This client's own user id in the channel, when known.
    public var me: String?
    /// Every member, this client included.
    public var members: [PresenceMember]

    /// A roster: this client's id and the members.
    public init(me: String?, members: [PresenceMember]) {
        self.me = me
        self.members = members
    }
}
