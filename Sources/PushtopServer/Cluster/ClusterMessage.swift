import PusherProtocol

/// What travels between nodes on the cluster's pub/sub channel, as compact JSON objects (`k` says the kind).
///
/// Events are published by the node that took them; presence and count changes by the Redis scripts that decide
/// them (so every node hears them in the one order Redis decided them).
public enum ClusterMessage: Sendable, Hashable {
    /// An event to deliver on `channels` (`origin` already delivered it to its own sockets).
    case event(
        origin: String, channels: [String], name: String, data: String, excludedSocketID: String?,
        userID: String?)
    /// A user's first connection anywhere joined a presence channel.
    case memberAdded(channel: String, userID: String, infoJSON: String)
    /// A user's last connection anywhere left a presence channel.
    case memberRemoved(channel: String, userID: String)
    /// A channel's subscription count across the cluster changed.
    case subscriptionCount(channel: String, count: Int)
    /// Close every connection of a user.
    case terminate(userID: String)
    /// A user came online (first signed-in connection anywhere) or went offline (last one gone).
    case userStatus(userID: String, online: Bool)

    /// The message as JSON text.
    public var encoded: String {
        var fields: [String: JSONValue]
        switch self {
        case .event(let origin, let channels, let name, let data, let excluded, let userID):
            fields = [
                "k": "e", "o": .string(origin), "c": .array(channels.map { .string($0) }), "n": .string(name),
                "d": .string(data),
            ]
            if let excluded { fields["x"] = .string(excluded) }
            if let userID { fields["u"] = .string(userID) }
        case .memberAdded(let channel, let userID, let info):
            fields = ["k": "ma", "c": .string(channel), "u": .string(userID), "i": .string(info)]
        case .memberRemoved(let channel, let userID):
            fields = ["k": "mr", "c": .string(channel), "u": .string(userID)]
        case .subscriptionCount(let channel, let count):
            fields = ["k": "sc", "c": .string(channel), "n": .number(Double(count))]
        case .terminate(let userID):
            fields = ["k": "t", "u": .string(userID)]
        case .userStatus(let userID, let online):
            fields = ["k": "w", "u": .string(userID), "s": .string(online ? "online" : "offline")]
        }
        return JSONValue.object(fields).jsonString
    }

    /// Reads a message; `nil` for anything else (a message from a newer node, or garbage on the channel).
    public init?(decoding text: String) {
        guard let object = JSONValue.parseIfJSON(text)?.objectValue, let kind = object["k"]?.stringValue else {
            return nil
        }
        let channel = object["c"]?.stringValue
        let userID = object["u"]?.stringValue
        switch kind {
        case "e":
            guard let origin = object["o"]?.stringValue, let list = object["c"]?.arrayValue,
                let name = object["n"]?.stringValue, let data = object["d"]?.stringValue
            else { return nil }
            self = .event(
                origin: origin, channels: list.compactMap(\.stringValue), name: name, data: data,
                excludedSocketID: object["x"]?.stringValue, userID: userID)
        case "ma":
            guard let channel, let userID else { return nil }
            self = .memberAdded(channel: channel, userID: userID, infoJSON: object["i"]?.stringValue ?? "")
        case "mr":
            guard let channel, let userID else { return nil }
            self = .memberRemoved(channel: channel, userID: userID)
        case "sc":
            // Redis' cjson writes integers as numbers; a string is accepted too.
            guard let channel, let count = object["n"]?.intValue ?? object["n"]?.stringValue.flatMap({ Int($0) })
            else { return nil }
            self = .subscriptionCount(channel: channel, count: count)
        case "t":
            guard let userID else { return nil }
            self = .terminate(userID: userID)
        case "w":
            guard let userID, let status = object["s"]?.stringValue else { return nil }
            self = .userStatus(userID: userID, online: status == "online")
        default:
            return nil
        }
    }
}
