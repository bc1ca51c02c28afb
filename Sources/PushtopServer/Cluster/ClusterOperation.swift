import PusherProtocol

/// What a node tells the cluster, in the order it happened on the node.
public enum ClusterOperation: Sendable {
    /// Events published through this node's API (already delivered to its own sockets).
    case publish([PublishRequest])
    /// A client event from a socket of this node (already delivered to the node's other sockets).
    case clientEvent(channel: String, name: String, data: String, userID: String?, socketID: String)
    /// A connection subscribed to a channel; `member` on presence channels (the cluster answers with the roster).
    case subscribed(channel: String, socketID: String, member: ClusterMember?)
    /// A connection left a channel (unsubscribed or closed).
    case left(channel: String, socketID: String, presence: Bool)
    /// A connection signed in as a user, watching `watchlist` (the cluster answers with who is online).
    case signedIn(userID: String, socketID: String, watchlist: [String])
    /// A signed-in connection went away.
    case signedOut(userID: String, socketID: String)
    /// `terminate_connections` for a user: every node closes the user's connections.
    case terminate(userID: String)
    /// This node's whole state, to replace what the cluster knows of it (after Redis came back).
    case resync(ClusterSnapshot)
}

/// A presence member as the cluster stores it.
public struct ClusterMember: Sendable, Hashable {
    public var userID: String
    /// `user_info` as JSON text (empty when there is none).
    public var infoJSON: String

    public init(userID: String, info: JSONValue?) {
        self.userID = userID
        infoJSON = info?.jsonString ?? ""
    }

    /// `user_info` parsed back.
    public var info: JSONValue? { infoJSON.isEmpty ? nil : JSONValue.parseIfJSON(infoJSON) }
}

/// Everything a node holds that the cluster counts: subscriptions, presence members and signed-in users.
public struct ClusterSnapshot: Sendable {
    /// Subscriptions per channel (users' own channels are not counted).
    public var subscriptions: [String: Int] = [:]
    /// Every presence connection: channel, socket id, member.
    public var presence: [(channel: String, socketID: String, member: ClusterMember)] = []
    /// Every signed-in connection: socket id and user id.
    public var users: [(socketID: String, userID: String)] = []
}
