import PusherProtocol

/// Checks received webhooks against Pusher's documented format and timing, request by request, and turns them into
/// rows: each event's row, and a `webhook_problem` row (``WebhookProblem``) for each deviation.
///
/// A value fed in arrival order (the receiver keeps one behind a lock); it remembers the last few seconds of events
/// to see duplicates from several nodes and departures that Pusher's grace would have hidden. Its memory is bounded:
/// entries older than the longest window are dropped, and at most ``capacity`` are kept.
public struct WebhookAuditor: Sendable {
    /// The same event again within this many milliseconds is a duplicate (several nodes sent it).
    public var duplicateWindowMs: Int64 = 1000
    /// Pusher's grace: a departure undone within this many milliseconds is never sent.
    public var graceMs: Int64 = 3000
    /// `time_ms` further than this from the arrival is flagged (the official SDKs refuse webhooks over 5 minutes old).
    public var clockSkewMs: Int64 = 300_000
    /// The most events remembered.
    public var capacity = 10_000

    /// The last lifecycle event of each channel (`occupied`/`vacated`) or presence member, with its arrival time.
    private var lifecycle: [String: (name: String, atMs: Int64)] = [:]
    /// Other events (client events, cache misses, counts), exactly, with their arrival time.
    private var recent: [String: Int64] = [:]

    /// An auditor that has seen nothing yet.
    public init() {}

    /// How many events it remembers now.
    public var remembered: Int { lifecycle.count + recent.count }

    /// What one request gave.
    public struct Audit: Sendable {
        /// The rows to show, in order: each event's row followed by the problems it has; problems of the whole
        /// payload first.
        public var rows: [ConsoleRow] = []
        /// The channels of its `channel_vacated` events (the receiver asks the HTTP API whether they are empty).
        public var vacated: [String] = []
    }

    /// Audits one parsed body that arrived at `receivedAtMs` (milliseconds since 1970).
    public mutating func audit(
        _ body: JSONValue, receivedAtMs: Int64, appID: String? = nil, remoteAddress: String? = nil
    ) -> Audit {
        var audit = Audit()
        let origin = Origin(receivedAtMs: receivedAtMs, appID: appID, remoteAddress: remoteAddress)
        let events = Self.events(in: body, origin: origin, rows: &audit.rows)
        let timeMs: Int64
        if let cause = timeProblem(body["time_ms"], receivedAtMs: receivedAtMs) {
            audit.rows.append(origin.problem(WebhookProblem.invalidTimeMs, cause))
            timeMs = receivedAtMs
        } else {
            timeMs = body["time_ms"]?.numberValue.map { Int64($0) } ?? receivedAtMs
        }
        prune(now: receivedAtMs)
        for event in events { check(event, timeMs: timeMs, origin: origin, into: &audit) }
        return audit
    }

    /// Where and when a request arrived: what its problem rows say.
    private struct Origin {
        var receivedAtMs: Int64
        var appID: String?
        var remoteAddress: String?

        func problem(
            _ name: String, _ cause: String, channel: String? = nil, event: String? = nil, user: String? = nil
        ) -> ConsoleRow {
            WebhookRows.problem(
                name, cause: cause, timeMs: receivedAtMs, appID: appID, remoteAddress: remoteAddress,
                channel: channel, event: event, userID: user)
        }
    }

    /// The body's events: its `events` array, or what a body not wrapped as documented holds (with a row saying
    /// so).
    private static func events(in body: JSONValue, origin: Origin, rows: inout [ConsoleRow]) -> [JSONValue] {
        if let list = body["events"]?.arrayValue {
            return list
        } else if body["events"] != nil {
            rows.append(origin.problem(WebhookProblem.noEvents, "events is not an array"))
            return []
        } else if let list = body.arrayValue {
            rows.append(
                origin.problem(
                    WebhookProblem.unwrappedEvents,
                    "the body is a bare array of events, not {\"time_ms\":…,\"events\":[…]} (soketi #137)"))
            return list
        } else if body["name"] != nil {
            rows.append(
                origin.problem(
                    WebhookProblem.unwrappedEvents,
                    "the body is one bare event, not wrapped in {\"time_ms\":…,\"events\":[…]} (soketi #137)"))
            return [body]
        } else {
            rows.append(origin.problem(WebhookProblem.noEvents, "the body has no events array"))
            return []
        }
    }

    /// One event's row and the problems it has.
    private mutating func check(_ event: JSONValue, timeMs: Int64, origin: Origin, into audit: inout Audit) {
        let appID = origin.appID
        guard let name = event["name"]?.stringValue else {
            audit.rows.append(origin.problem(WebhookProblem.missingFields, "an event has no name: \(event.jsonString)"))
            return
        }
        let channel = event["channel"]?.stringValue
        guard let fields = WebhookRows.documentedFields[name],
            let row = WebhookRows.row(for: event, timeMs: timeMs, appID: appID, remoteAddress: origin.remoteAddress)
        else {
            audit.rows.append(
                origin.problem(
                    WebhookProblem.unknownEvent, "Pusher documents no \(name) event", channel: channel, event: name))
            return
        }
        audit.rows.append(row)
        let missing = fields.filter { event[$0] == nil || event[$0] == .null }
        if !missing.isEmpty {
            audit.rows.append(
                origin.problem(
                    WebhookProblem.missingFields,
                    "\(name) without \(missing.joined(separator: ", "))", channel: channel, event: name))
        }
        for (field, cause) in WebhookRows.wrongTypes(event, name: name) {
            _ = field
            audit.rows.append(
                origin.problem(WebhookProblem.wrongType, cause, channel: channel, event: name, user: row.userID))
        }
        if let (kind, cause) = timing(name: name, event: event, appID: appID, atMs: origin.receivedAtMs) {
            audit.rows.append(origin.problem(kind, cause, channel: channel, event: name, user: row.userID))
        }
        if name == "channel_vacated", let channel { audit.vacated.append(channel) }
    }

    /// The `vacated_while_subscribed` row for a `channel_vacated` the HTTP API contradicts.
    public static func vacatedWhileSubscribed(
        channel: String, subscribers: Int, timeMs: Int64, appID: String?, remoteAddress: String?
    ) -> ConsoleRow {
        var row = WebhookRows.problem(
            WebhookProblem.vacatedWhileSubscribed,
            cause: "channel_vacated while the HTTP API lists \(subscribers) subscriber(s) (soketi #616)",
            timeMs: timeMs, appID: appID, remoteAddress: remoteAddress, channel: channel, event: "channel_vacated")
        row.subscriptionCount = subscribers
        return row
    }

    private func timeProblem(_ value: JSONValue?, receivedAtMs: Int64) -> String? {
        guard let value else { return "time_ms is missing" }
        guard let n = value.numberValue, n >= 0, n == n.rounded(), n < 1e15 else {
            return "time_ms is not a number of milliseconds: \(value.jsonString)"
        }
        let skew = Int64(n) - receivedAtMs
        if abs(skew) > clockSkewMs {
            let seconds = abs(skew) / 1000
            let hint = n < 1e11 ? " (seconds instead of milliseconds?)" : ""
            return "time_ms is \(seconds) s \(skew < 0 ? "old" : "ahead")\(hint): the official SDKs refuse it"
        }
        return nil
    }

    /// A duplicate or a departure Pusher's grace would have hidden; remembers the event.
    private mutating func timing(name: String, event: JSONValue, appID: String?, atMs: Int64) -> (String, String)? {
        let channel = event["channel"]?.stringValue ?? ""
        let user = event["user_id"]?.stringValue
        let scope = (appID ?? "") + "\u{0}" + channel
        switch name {
        case "channel_occupied", "channel_vacated", "member_added", "member_removed":
            let key = name.hasPrefix("member") ? scope + "\u{0}" + (user ?? "") : scope
            let last = lifecycle[key]
            lifecycle[key] = (name, atMs)
            guard let last else { return nil }
            let gap = atMs - last.atMs
            if last.name == name, gap <= duplicateWindowMs {
                return (
                    WebhookProblem.duplicateEvent, "\(name) twice in \(gap) ms: sent by several nodes? (soketi PR #438)"
                )
            }
            let undone =
                (last.name == "member_removed" && name == "member_added")
                || (last.name == "channel_vacated" && name == "channel_occupied")
            if undone, gap <= graceMs {
                return (
                    WebhookProblem.noGrace,
                    "\(last.name) then \(name) \(gap) ms later: Pusher waits up to 3 s and would have sent neither (soketi #830)"
                )
            }
            return nil
        default:
            let key = scope + "\u{0}" + event.jsonString
            let last = recent[key]
            recent[key] = atMs
            if let last, atMs - last <= duplicateWindowMs {
                return (
                    WebhookProblem.duplicateEvent,
                    "the same \(name) twice in \(atMs - last) ms: sent by several nodes? (soketi PR #438)"
                )
            }
            return nil
        }
    }

    private mutating func prune(now: Int64) {
        guard lifecycle.count + recent.count > capacity / 2 else { return }
        let horizon = now - max(duplicateWindowMs, graceMs)
        lifecycle = lifecycle.filter { $0.value.atMs >= horizon }
        recent = recent.filter { $0.value >= horizon }
        if lifecycle.count + recent.count > capacity {
            lifecycle.removeAll()
            recent.removeAll()
        }
    }
}
