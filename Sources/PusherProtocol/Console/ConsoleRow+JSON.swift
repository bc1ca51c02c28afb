extension ConsoleRow {
    /// The row as a JSON object, keys in a fixed order (see ``ConsoleRow``); absent fields are left out.
    public var jsonLine: String {
        JSONValue.orderedObject(orderedFields)
    }

    /// The row's fields as ordered JSON members.
    public var orderedFields: [(String, JSONValue)] {
        var f: [(String, JSONValue)] = [
            ("type", .string(type.rawValue)),
            ("time", .string(ConsoleRow.isoTime(timeMs))),
            ("time_ms", .number(Double(timeMs))),
        ]
        func add(_ key: String, _ value: String?) { if let value { f.append((key, .string(value))) } }
        func add(_ key: String, _ value: Int?) { if let value { f.append((key, .number(Double(value)))) } }
        func add(_ key: String, _ value: Int64?) { if let value { f.append((key, .number(Double(value)))) } }
        func add(_ key: String, _ value: Bool?) { if let value { f.append((key, .bool(value))) } }
        func add(_ key: String, _ value: [String]?) {
            if let value { f.append((key, .array(value.map(JSONValue.string)))) }
        }
        add("node", node)
        add("app_id", appID)
        add("source", source?.rawValue)
        add("socket_id", socketID)
        add("channel", channel)
        add("event", event)
        add("user_id", userID)
        if let userInfo { f.append(("user_info", userInfo)) }
        add("channels", channels)
        add("data", data)
        add("data_bytes", dataBytes)
        add("data_truncated", dataTruncated)
        add("excluded_socket_id", excludedSocketID)
        add("batch", batch)
        add("remote_address", remoteAddress)
        add("origin", origin)
        add("protocol", protocolVersion)
        add("client", clientLibrary)
        add("version", clientVersion)
        add("tls", tls)
        add("code", code)
        add("reason", reason)
        add("closed_by", closedBy?.rawValue)
        add("lifetime_ms", lifetimeMs)
        add("rule", rule)
        add("status", status)
        add("url", url)
        add("attempt", attempt)
        add("events", events)
        add("dropped", dropped)
        add("subscription_count", subscriptionCount)
        add("expected_signature", expectedSignature)
        add("received_signature", receivedSignature)
        add("cause", cause)
        add("problem", problem)
        add("delivered_to", deliveredTo)
        add("fault", fault)
        add("verdict", verdict)
        add("previous_socket_id", previousSocketID)
        add("reconnect_ms", reconnectMs)
        add("resubscribe_ms", resubscribeMs)
        return f
    }

    /// Reads a row from its JSON object; `nil` when `type` is missing or unknown, or `time_ms` is missing.
    /// Unknown keys are ignored, so older readers accept newer rows.
    public init?(json: JSONValue) {
        guard let type = json["type"]?.stringValue.flatMap(ConsoleRowType.init(rawValue:)),
            let time = json["time_ms"]?.numberValue
        else { return nil }
        self.init(type: type, timeMs: Int64(time))
        func s(_ key: String) -> String? { json[key]?.stringValue }
        func i(_ key: String) -> Int? { json[key]?.intValue }
        func b(_ key: String) -> Bool? { json[key]?.boolValue }
        func a(_ key: String) -> [String]? { json[key]?.arrayValue?.compactMap(\.stringValue) }
        node = s("node")
        appID = s("app_id")
        source = s("source").flatMap(ConsoleRowSource.init(rawValue:))
        socketID = s("socket_id")
        channel = s("channel")
        event = s("event")
        userID = s("user_id")
        userInfo = json["user_info"]
        channels = a("channels")
        data = s("data")
        dataBytes = i("data_bytes")
        dataTruncated = b("data_truncated")
        excludedSocketID = s("excluded_socket_id")
        batch = b("batch")
        remoteAddress = s("remote_address")
        origin = s("origin")
        protocolVersion = i("protocol")
        clientLibrary = s("client")
        clientVersion = s("version")
        tls = b("tls")
        code = i("code")
        reason = s("reason")
        closedBy = s("closed_by").flatMap(ConsoleClosedBy.init(rawValue:))
        lifetimeMs = i("lifetime_ms").map(Int64.init)
        rule = s("rule")
        status = i("status")
        url = s("url")
        attempt = i("attempt")
        events = a("events")
        dropped = i("dropped")
        subscriptionCount = i("subscription_count")
        expectedSignature = s("expected_signature")
        receivedSignature = s("received_signature")
        cause = s("cause")
        problem = s("problem")
        deliveredTo = a("delivered_to")
        fault = s("fault")
        verdict = s("verdict")
        previousSocketID = s("previous_socket_id")
        reconnectMs = i("reconnect_ms").map(Int64.init)
        resubscribeMs = i("resubscribe_ms").map(Int64.init)
    }

    /// Reads a row from one JSON line.
    public init?(jsonLine: String) {
        guard let value = JSONValue.parseIfJSON(jsonLine) else { return nil }
        self.init(json: value)
    }

    /// `2026-11-26T09:30:00.123Z` for a time in milliseconds since 1970.
    public static func isoTime(_ ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - seconds * 1000)
        var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        // Civil-from-days (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = Int(yoe + era * 400) + (month <= 2 ? 1 : 0)
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }
}
