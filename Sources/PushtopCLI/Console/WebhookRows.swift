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

    /// The JSON type Pusher documents for each field of an event: `data` of a client event is a string (the official
    /// SDKs hand it to apps as one), ids and names are strings, `subscription_count` is a number.
    public static let documentedTypes: [String: JSONType] = [
        "name": .string, "channel": .string, "user_id": .string, "event": .string, "data": .string,
        "socket_id": .string, "subscription_count": .number,
    ]

    /// A JSON value's type, as a problem names it.
    public enum JSONType: String, Sendable {
        case string, number, boolean, object, array, null

        public init(of value: JSONValue) {
            switch value {
            case .string: self = .string
            case .number: self = .number
            case .bool: self = .boolean
            case .object: self = .object
            case .array: self = .array
            case .null: self = .null
            }
        }

        /// "a string", "an object".
        public var withArticle: String {
            switch self {
            case .object, .array: return "an \(rawValue)"
            default: return "a \(rawValue)"
            }
        }
    }

    /// The fields of `event` whose JSON type is not the documented one, with a cause naming each.
    public static func wrongTypes(_ event: JSONValue, name: String) -> [(field: String, cause: String)] {
        guard case .object(let fields) = event else { return [] }
        return fields.keys.sorted().compactMap { field in
            guard let value = fields[field], value != .null, let documented = documentedTypes[field] else {
                return nil
            }
            let actual = JSONType(of: value)
            guard actual != documented else { return nil }
            let text = value.jsonString
            let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
            let why = field == "data" ? " (the official SDKs hand data to apps as a string)" : ""
            return (
                field,
                "\(name) \(field) is \(actual.withArticle), not \(documented.withArticle): \(shown)\(why)"
            )
        }
    }

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
        // What the server sent, even of the wrong type (the auditor flags that): a numeric user_id stays in the row.
        row.channel = text(event["channel"])
        row.userID = text(event["user_id"])
        row.socketID = text(event["socket_id"])
        switch name {
        case "client_event":
            row.event = text(event["event"])
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

    /// A field's value as the row shows it: a string as it is, any other value as its JSON text, `nil` when absent.
    static func text(_ value: JSONValue?) -> String? {
        guard let value, value != .null else { return nil }
        return value.stringValue ?? value.jsonString
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
