/// One entry of `pusher_internal:watchlist_events`: users of the watchlist that came online or went offline.
public struct WatchlistChange: Sendable, Hashable {
    /// Online or offline.
    public enum Status: String, Sendable, Hashable {
        case online
        case offline
    }

    /// Whether the users came online or went offline.
    public var status: Status
    /// The watched users concerned.
    public var userIDs: [String]

    /// A change of `status` for the users `userIDs`.
    public init(status: Status, userIDs: [String]) {
        self.status = status
        self.userIDs = userIDs
    }

    /// Reads the `data` of `pusher_internal:watchlist_events`: `{"events":[{"name":"online","user_ids":[…]}]}`.
    /// Entries with an unknown name or without user ids are skipped.
    public static func changes(fromWatchlistData data: JSONValue?) -> [WatchlistChange] {
        guard let events = data?["events"]?.arrayValue else { return [] }
        return events.compactMap { event in
            guard let name = event["name"]?.stringValue, let status = Status(rawValue: name),
                let ids = event["user_ids"]?.arrayValue
            else { return nil }
            return WatchlistChange(status: status, userIDs: ids.compactMap(\.stringValue))
        }
    }

    /// The `data` object of `pusher_internal:watchlist_events` carrying these changes.
    public static func watchlistData(_ changes: [WatchlistChange]) -> JSONValue {
        .object([
            "events": .array(
                changes.map { change in
                    .object([
                        "name": .string(change.status.rawValue),
                        "user_ids": .array(change.userIDs.map(JSONValue.string)),
                    ])
                })
        ])
    }
}
