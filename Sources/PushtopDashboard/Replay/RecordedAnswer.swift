import PusherProtocol

/// The HTTP API answers of the channel browser and the presence check as recording lines, and back: a
/// replay shows those views as they were live.
enum RecordedAnswer {
    /// The recording line of an answer event (`nil` for other events).
    static func item(_ event: UIEvent, time: Double) -> RecordingItem? {
        switch event {
        case .occupiedChannels(let list, let error, let app):
            let result = list.map { channels in
                JSONValue.array(
                    channels.sorted { $0.name < $1.name }.map { c in
                        var o: [String: JSONValue] = ["name": .string(c.name)]
                        if let n = c.subscriptionCount { o["subscription_count"] = .number(Double(n)) }
                        if let n = c.userCount { o["user_count"] = .number(Double(n)) }
                        return .object(o)
                    })
            }
            return .tagged(.apiAnswer(time: time, query: "channels", result: result, error: error), app: app)
        case .presenceUsers(let channel, let userIDs, let error, let app):
            return .tagged(
                .apiAnswer(
                    time: time, query: "users/" + channel,
                    result: userIDs.map { .array($0.map(JSONValue.string)) }, error: error), app: app)
        default:
            return nil
        }
    }

    /// The answer event of a recorded line (`nil` for an unknown query: a newer pushtop's).
    static func event(query: String, result: JSONValue?, error: String?, app: Int) -> UIEvent? {
        if query == "channels" {
            let list = result?.arrayValue?.compactMap { c in
                c["name"]?.stringValue.map { OccupiedChannel(name: $0, info: c) }
            }
            return .occupiedChannels(list, error: error ?? (list == nil ? "no answer recorded" : nil), app: app)
        }
        if query.hasPrefix("users/") {
            let ids = result?.arrayValue?.compactMap(\.stringValue)
            return .presenceUsers(
                channel: String(query.dropFirst(6)), userIDs: ids,
                error: error ?? (ids == nil ? "no answer recorded" : nil), app: app)
        }
        return nil
    }
}
