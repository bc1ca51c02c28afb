import PusherProtocol

/// Turns the events of a received webhook into console rows (`"source":"webhook"`).
///
/// `channel_occupied` → `occupied`, `channel_vacated` → `vacated`, `member_added`/`member_removed` →
/// `presence_event` (`event` the name, `user_id`), `client_event` → `client_event` (channel, event, socket, user,
/// data), `subscription_count` → `subscription_count`, `cache_miss` → `subscribed` with `event` `cache_miss` (someone
/// subscribed to a cache channel that had nothing cached). Other names → `webhook_problem` (`unknown_event`).
public enum WebhookRows {
    /// The fields Pusher documents for each event name (besides `name`).
    public static let documentedFields: [String: [String]] = [
        "channel_occupied": ["channel"],
        "channel_vacated": ["channel"],
        "member_added": ["channel", "user_id"],
        "member_removed": ["channel", "user_id"],
        "client_event": ["channel", "event", "data", "socket_id"],
        "cache_miss": ["channel"],
        "subscription_count": ["channel", "subscription_count"],
    ]

    /// The row type of an event name, `nil` when Pusher documents no such event.
    public static func type(of name: String) -> ConsoleRowType? {
        switch name {
        case "channel_occupied": return .occupied
        case "channel_vacated": return .vacated
        case "member_added", "member_removed": return .presenceEvent
        case "client_event": return .clientEvent
        case "subscription_count": return .subscriptionCount
        case "cache_miss": return .subscribed
        default: return nil
        }
    }

    /// The row of one webhook event (`nil` when the event has no known `name`: the auditor reports it).
    /// - Parameters:
    ///   - timeMs: the payload's `time_ms` (or when the request arrived, when it has none).
    public static func row(for event: JSONValue, timeMs: Int64, appID: String?, remoteAddress: String?) -> ConsoleRow? {
        guard let name = event["name"]?.stringValue, let type = type(of: name) else { return nil }
        var row = ConsoleRow(type: type, timeMs: timeMs)
        row.source = .webhook
        row.appID = appID
        row.remoteAddress = remoteAddress
        row.channel = event["channel"]?.stringValue
        row.userID = event["user_id"]?.stringValue
        row.socketID = event["socket_id"]?.stringValue
        switch name {
        case "client_event":
            row.event = event["event"]?.stringValue
            if let data = event["data"] {
                let text = data.stringValue ?? data.jsonString
                row.data = text
                row.dataBytes = text.utf8.count
            }
        case "subscription_count":
            row.event = name
            row.subscriptionCount = event["subscription_count"]?.intValue
        default:
            row.event = name
        }
        return row
    }

    /// A `webhook_problem` row (`source: webhook`).
    public static func problem(
        _ problem: String, cause: String, timeMs: Int64, appID: String?, remoteAddress: String?,
        channel: String? = nil, event: String? = nil, userID: String? = nil
    ) -> ConsoleRow {
        var row = ConsoleRow(type: .webhookProblem, timeMs: timeMs)
        row.source = .webhook
        row.appID = appID
        row.remoteAddress = remoteAddress
        row.channel = channel
        row.event = event
        row.userID = userID
        row.problem = problem
        row.cause = cause
        return row
    }
}
