/// A member of a presence channel: a user id and the info the app attached to it.
public struct PresenceMember: Sendable, Hashable {
    public var userID: String
    public var userInfo: JSONValue?

    public init(userID: String, userInfo: JSONValue? = nil) {
        self.userID = userID
        self.userInfo = userInfo
    }
}

/// A presence channel's roster at the moment of subscription: the members and which one is this client.
public struct PresenceSnapshot: Sendable, Hashable {
    public var me: String?
    public var members: [PresenceMember]

    public init(me: String?, members: [PresenceMember]) {
        self.me = me
        self.members = members
    }
}
