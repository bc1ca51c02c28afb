import PusherProtocol

/// One event of a Pusher webhook batch, in Pusher's shapes (`{"name":"channel_occupied","channel":…}`, …).
public enum WebhookEvent: Sendable, Hashable {
    /// A channel got its first subscriber.
    case channelOccupied(channel: String)
    /// A channel's last subscriber left.
    case channelVacated(channel: String)
    /// A user joined a presence channel (their first connection on it).
    case memberAdded(channel: String, userID: String)
    /// A user left a presence channel (their last connection on it).
    case memberRemoved(channel: String, userID: String)
    /// A client sent a `client-` event; `userID` on presence channels.
    case clientEvent(channel: String, event: String, data: String, socketID: String, userID: String?)
    /// A client subscribed to a cache channel that had no cached event.
    case cacheMiss(channel: String)
    /// A channel's number of subscriptions changed (sent only to URLs that ask for `subscription_count`).
    case subscriptionCount(channel: String, count: Int)

    /// The event's type, as in its `name` field (`channel_occupied`, `client_event`, …).
    public var name: String { json["name"]?.stringValue ?? "" }

    /// The event's JSON object.
    public var json: JSONValue {
        switch self {
        case .channelOccupied(let channel):
            return ["name": "channel_occupied", "channel": .string(channel)]
        case .channelVacated(let channel):
            return ["name": "channel_vacated", "channel": .string(channel)]
        case .memberAdded(let channel, let userID):
            return ["name": "member_added", "channel": .string(channel), "user_id": .string(userID)]
        case .memberRemoved(let channel, let userID):
            return ["name": "member_removed", "channel": .string(channel), "user_id": .string(userID)]
        case .clientEvent(let channel, let event, let data, let socketID, let userID):
            var fields: [String: JSONValue] = [
                "name": "client_event", "channel": .string(channel), "event": .string(event), "data": .string(data),
                "socket_id": .string(socketID),
            ]
            if let userID { fields["user_id"] = .string(userID) }
            return .object(fields)
        case .cacheMiss(let channel):
            return ["name": "cache_miss", "channel": .string(channel)]
        case .subscriptionCount(let channel, let count):
            return [
                "name": "subscription_count", "channel": .string(channel), "subscription_count": .number(Double(count)),
            ]
        }
    }

    /// The body of one webhook request: `{"time_ms":…, "events":[…]}`.
    public static func body(_ events: [WebhookEvent], timeMS: Int) -> String {
        JSONValue.object(["time_ms": .number(Double(timeMS)), "events": .array(events.map(\.json))]).jsonString
    }
}
