/// Writes and reads recording lines (JSON, `"type"` first). Secret material never reaches a line: `auth`
/// signatures and `shared_secret`s are replaced by ``Redaction/marker`` in frames, events and authorization
/// traces.
public enum RecordingCodec {
    // MARK: Writing

    /// One recording line for `item` (without the newline).
    public static func encode(_ item: RecordingItem) -> String {
        JSONValue.orderedObject(fields(item))
    }

    /// A line's fields, `"type"` first.
    static func fields(_ item: RecordingItem) -> [(String, JSONValue)] {
        switch item {
        case .header(let h):
            var fields: [(String, JSONValue)] = [
                ("type", "recording"), ("version", .number(Double(h.version))), ("started", .number(h.started)),
                ("endpoint", .string(h.endpoint)), ("channels", .array(h.channels.map(JSONValue.string))),
                ("source", .string(h.source)),
            ]
            if !h.apps.isEmpty {
                fields.append(
                    (
                        "apps",
                        .array(
                            h.apps.map {
                                .object(["label": .string($0.label), "endpoint": .string($0.endpoint)])
                            })
                    ))
            }
            return fields
        case .client(let time, let event):
            return [("type", "client"), ("t", .number(time)), ("event", encode(event))]
        case .frame(let f):
            var fields: [(String, JSONValue)] = [
                ("type", "frame"), ("t", .number(f.time)), ("dir", .string(f.direction.rawValue)),
                ("kind", .string(f.kind.rawValue)), ("size", .number(Double(f.size))),
                ("text", .string(redactFrame(f.text, outbound: f.direction == .outbound))),
            ]
            if let code = f.closeCode { fields.append(("close_code", .number(Double(code)))) }
            return fields
        case .framesDropped(let time, let total):
            return [("type", "frames_dropped"), ("t", .number(time)), ("total", .number(Double(total)))]
        case .apiAnswer(let time, let query, let result, let error):
            var fields: [(String, JSONValue)] = [("type", "api"), ("t", .number(time)), ("query", .string(query))]
            if let result { fields.append(("result", result)) }
            if let error { fields.append(("error", .string(error))) }
            return fields
        case .console(let time, let row):
            return [
                ("type", "console"), ("t", .number(time)),
                ("row", .object(Dictionary(row.orderedFields) { a, _ in a })),
            ]
        case .inApp(let app, let item):
            // The first app's lines (and one-app recordings) have no "app" field.
            return fields(item) + (app == 0 ? [] : [("app", .number(Double(app)))])
        }
    }

    /// A frame's text with its secrets removed: `auth` on outbound frames, `shared_secret` anywhere.
    public static func redactFrame(_ text: String, outbound: Bool) -> String {
        guard text.contains("auth") || text.contains("shared_secret") else { return text }
        return Redaction.redactStringFields(outbound ? ["auth", "shared_secret"] : ["shared_secret"], in: text)
    }

    static func encode(_ event: ClientEvent) -> JSONValue {
        switch event {
        case .state(let c):
            return .object([
                "kind": "state", "previous": .string(c.previous.rawValue), "current": .string(c.current.rawValue),
                "socket_id": orNull(c.socketID),
            ])
        case .connectingIn(let delay):
            return .object(["kind": "connecting_in", "delay": .number(delay)])
        case .closed(let c):
            return .object([
                "kind": "closed", "code": orNull(c.code), "reason": .string(c.reason),
                "action": .string(c.action.rawValue),
            ])
        case .subscribing(let channel):
            return .object(["kind": "subscribing", "channel": .string(channel)])
        case .subscribed(let channel, let presence):
            return encodeSubscribed(channel: channel, presence: presence)
        case .subscriptionError(let channel, let status, let message):
            return .object([
                "kind": "subscription_error", "channel": .string(channel), "status": orNull(status),
                "message": .string(message),
            ])
        case .unsubscribed(let channel):
            return .object(["kind": "unsubscribed", "channel": .string(channel)])
        case .event(let e):
            return encodeChannelEvent(e)
        case .memberAdded(let channel, let m):
            return .object(["kind": "member_added", "channel": .string(channel), "member": memberJSON(m)])
        case .memberRemoved(let channel, let m):
            return .object(["kind": "member_removed", "channel": .string(channel), "member": memberJSON(m)])
        case .subscriptionCount(let channel, let count):
            return .object(["kind": "subscription_count", "channel": .string(channel), "count": .number(Double(count))])
        case .error(let code, let message):
            return .object(["kind": "error", "code": orNull(code), "message": .string(message)])
        case .decryptionError(let channel, let event, let message):
            return .object([
                "kind": "decryption_error", "channel": .string(channel), "event": .string(event),
                "message": .string(message),
            ])
        case .pong(let rtt):
            return .object(["kind": "pong", "round_trip": .number(rtt)])
        case .signedIn(let user):
            return encodeSignedIn(user)
        case .signInFailed(let status, let message):
            return .object(["kind": "sign_in_failed", "status": orNull(status), "message": .string(message)])
        case .signedOut(let userID):
            return .object(["kind": "signed_out", "user_id": .string(userID)])
        case .userEvent(let e):
            return encodeUserEvent(e)
        case .watchlist(let change):
            return .object([
                "kind": "watchlist", "status": .string(change.status.rawValue),
                "user_ids": .array(change.userIDs.map(JSONValue.string)),
            ])
        case .authorization(let t):
            return encodeAuthorization(t)
        }
    }

    private static func orNull(_ v: Int?) -> JSONValue { v.map { .number(Double($0)) } ?? .null }

    private static func orNull(_ v: String?) -> JSONValue { v.map(JSONValue.string) ?? .null }

    private static func memberJSON(_ m: PresenceMember) -> JSONValue {
        .object(["user_id": .string(m.userID), "user_info": m.userInfo ?? .null])
    }

    private static func encodeSubscribed(channel: String, presence: PresenceSnapshot?) -> JSONValue {
        var o: [String: JSONValue] = ["kind": "subscribed", "channel": .string(channel)]
        if let presence {
            o["presence"] = .object(["me": orNull(presence.me), "members": .array(presence.members.map(memberJSON))])
        }
        return .object(o)
    }

    private static func encodeChannelEvent(_ e: ChannelEvent) -> JSONValue {
        .object([
            "kind": "event", "channel": .string(e.channel), "event": .string(e.name), "data": orNull(e.dataText),
            "user_id": orNull(e.userID), "received_at": .number(e.receivedAt),
            "raw_frame": orNull(e.rawFrame.map { redactFrame($0, outbound: false) }),
        ])
    }

    private static func encodeSignedIn(_ user: SignedInUser) -> JSONValue {
        .object([
            "kind": "signed_in", "id": .string(user.id), "user_data": .string(user.userData),
            "watchlist": .array(user.watchlist.map(JSONValue.string)), "user_info": user.userInfo ?? .null,
        ])
    }

    private static func encodeUserEvent(_ e: UserEvent) -> JSONValue {
        .object([
            "kind": "user_event", "user_id": .string(e.userID), "event": .string(e.name),
            "data": orNull(e.dataText), "received_at": .number(e.receivedAt),
        ])
    }

    /// An authorization trace, its signature and the response's secrets redacted (the key part of `auth` stays).
    private static func encodeAuthorization(_ t: AuthorizationTrace) -> JSONValue {
        let auth = t.auth.map { a in
            a.firstIndex(of: ":").map { String(a[..<$0]) + ":" + Redaction.marker } ?? Redaction.marker
        }
        return .object([
            "kind": "authorization", "channel": .string(t.channel), "socket_id": .string(t.socketID),
            "authorizer": .string(t.authorizer), "started_at": .number(t.startedAt),
            "duration": .number(t.duration),
            "status": orNull(t.status),
            "response": orNull(
                t.responseExcerpt.map { Redaction.redactStringFields(["auth", "shared_secret"], in: $0) }),
            "auth": orNull(auth), "channel_data": orNull(t.channelData), "has_shared_secret": .bool(t.hasSharedSecret),
            "error": orNull(t.error),
        ])
    }

    // MARK: Reading

    /// Reads one line. - Throws: a reason (without the line number).
    public static func decode(_ line: String) throws(RecordingLineError) -> RecordingItem {
        let value: JSONValue
        do { value = try JSONValue(parsing: line) } catch { throw RecordingLineError("not JSON (\(error))") }
        guard case .object(let o) = value else { throw RecordingLineError("not a JSON object") }
        guard let type = o["type"]?.stringValue else { throw RecordingLineError("no \"type\"") }
        let f = Fields(object: o, type: type)
        switch type {
        case "recording":
            return .header(try decodeHeader(f))
        case "client":
            guard case .object(let e)? = o["event"] else { throw RecordingLineError("client: no \"event\" object") }
            return .tagged(.client(time: try f.number("t"), event: try decodeEvent(e)), app: try app(o))
        case "frame":
            guard let dir = WireFrame.Direction(rawValue: try f.string("dir")),
                let kind = WireFrame.Kind(rawValue: try f.string("kind"))
            else { throw RecordingLineError("frame: unknown \"dir\" or \"kind\"") }
            return .tagged(
                .frame(
                    WireFrame(
                        time: try f.number("t"), direction: dir, kind: kind,
                        size: Int(try f.number("size")), text: o["text"]?.stringValue ?? "",
                        closeCode: o["close_code"]?.intValue)),
                app: try app(o))
        case "frames_dropped":
            return .tagged(.framesDropped(time: try f.number("t"), total: Int(try f.number("total"))), app: try app(o))
        case "api":
            let result = o["result"]
            return .tagged(
                .apiAnswer(
                    time: try f.number("t"), query: try f.string("query"),
                    result: result == .null ? nil : result, error: o["error"]?.stringValue), app: try app(o))
        case "console":
            guard let json = o["row"], let row = ConsoleRow(json: json) else {
                throw RecordingLineError("console: no \"row\" with a known \"type\" and \"time_ms\"")
            }
            return .tagged(.console(time: try f.number("t"), row: row), app: try app(o))
        default:
            throw RecordingLineError("unknown type \"\(type)\"")
        }
    }

    /// The header line's fields; refuses a format newer than this code reads.
    private static func decodeHeader(_ f: Fields) throws(RecordingLineError) -> RecordingHeader {
        let o = f.object
        let version = Int(try f.number("version"))
        guard version <= RecordingHeader.currentVersion else {
            throw RecordingLineError(
                "recording format \(version) is newer than this pushtop reads (\(RecordingHeader.currentVersion))")
        }
        var header = RecordingHeader(
            version: version, started: try f.number("started"),
            endpoint: o["endpoint"]?.stringValue ?? "",
            channels: o["channels"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            source: o["source"]?.stringValue ?? "")
        header.apps = (o["apps"]?.arrayValue ?? []).compactMap { a in
            a["label"]?.stringValue.map {
                RecordingHeader.App(label: $0, endpoint: a["endpoint"]?.stringValue ?? "")
            }
        }
        return header
    }

    /// A line's (or a client event's) object, whose missing fields are errors naming its type (`TYPE: no …`).
    private struct Fields {
        let object: [String: JSONValue]
        let type: String

        func number(_ k: String) throws(RecordingLineError) -> Double {
            guard let v = object[k]?.numberValue else { throw RecordingLineError("\(type): no number \"\(k)\"") }
            return v
        }

        func string(_ k: String) throws(RecordingLineError) -> String {
            guard let v = object[k]?.stringValue else { throw RecordingLineError("\(type): no string \"\(k)\"") }
            return v
        }

        func optional(_ k: String) -> String? { object[k]?.stringValue }

        func member(_ v: JSONValue?) throws(RecordingLineError) -> PresenceMember {
            guard let m = v?.objectValue, let id = m["user_id"]?.stringValue else {
                throw RecordingLineError("\(type): bad member")
            }
            let info = m["user_info"]
            return PresenceMember(userID: id, userInfo: info == .null ? nil : info)
        }
    }

    /// A line's app index (0 when absent: one-app and older recordings).
    static func app(_ o: [String: JSONValue]) throws(RecordingLineError) -> Int {
        guard let value = o["app"] else { return 0 }
        guard let n = value.intValue, n >= 0, n < 1_000 else { throw RecordingLineError("\"app\" is not an app index") }
        return n
    }

    static func decodeEvent(_ o: [String: JSONValue]) throws(RecordingLineError) -> ClientEvent {
        let kind = o["kind"]?.stringValue ?? ""
        let f = Fields(object: o, type: kind)
        switch kind {
        case "state":
            guard let p = ConnectionState(rawValue: try f.string("previous")),
                let c = ConnectionState(rawValue: try f.string("current"))
            else {
                throw RecordingLineError("state: unknown state")
            }
            return .state(StateChange(previous: p, current: c, socketID: f.optional("socket_id")))
        case "connecting_in": return .connectingIn(delay: try f.number("delay"))
        case "closed":
            guard let action = CloseAction(rawValue: try f.string("action")) else {
                throw RecordingLineError("closed: unknown action")
            }
            return .closed(
                ConnectionClosure(code: o["code"]?.intValue, reason: f.optional("reason") ?? "", action: action))
        case "subscribing": return .subscribing(channel: try f.string("channel"))
        case "subscribed": return try decodeSubscribed(f)
        case "subscription_error":
            return .subscriptionError(
                channel: try f.string("channel"), status: o["status"]?.intValue, message: f.optional("message") ?? "")
        case "unsubscribed": return .unsubscribed(channel: try f.string("channel"))
        case "event":
            return .event(
                ChannelEvent(
                    channel: try f.string("channel"), name: try f.string("event"), dataText: f.optional("data"),
                    userID: f.optional("user_id"), receivedAt: o["received_at"]?.numberValue ?? 0,
                    rawFrame: f.optional("raw_frame")))
        case "member_added": return .memberAdded(channel: try f.string("channel"), member: try f.member(o["member"]))
        case "member_removed":
            return .memberRemoved(channel: try f.string("channel"), member: try f.member(o["member"]))
        case "subscription_count":
            return .subscriptionCount(channel: try f.string("channel"), count: Int(try f.number("count")))
        case "error": return .error(code: o["code"]?.intValue, message: f.optional("message") ?? "")
        case "decryption_error":
            return .decryptionError(
                channel: try f.string("channel"), event: try f.string("event"), message: f.optional("message") ?? "")
        case "pong": return .pong(roundTrip: try f.number("round_trip"))
        case "signed_in": return try decodeSignedIn(f)
        case "sign_in_failed": return .signInFailed(status: o["status"]?.intValue, message: f.optional("message") ?? "")
        case "signed_out": return .signedOut(userID: try f.string("user_id"))
        case "user_event":
            return .userEvent(
                UserEvent(
                    userID: try f.string("user_id"), name: try f.string("event"), dataText: f.optional("data"),
                    receivedAt: o["received_at"]?.numberValue ?? 0))
        case "watchlist":
            guard let status = WatchlistChange.Status(rawValue: try f.string("status")) else {
                throw RecordingLineError("watchlist: unknown status")
            }
            return .watchlist(
                WatchlistChange(status: status, userIDs: o["user_ids"]?.arrayValue?.compactMap(\.stringValue) ?? []))
        case "authorization": return try decodeAuthorization(f)
        default:
            throw RecordingLineError("unknown client event kind \"\(kind)\"")
        }
    }

    private static func decodeSubscribed(_ f: Fields) throws(RecordingLineError) -> ClientEvent {
        var presence: PresenceSnapshot?
        if let p = f.object["presence"]?.objectValue {
            var members: [PresenceMember] = []
            for m in p["members"]?.arrayValue ?? [] { members.append(try f.member(m)) }
            presence = PresenceSnapshot(me: p["me"]?.stringValue, members: members)
        }
        return .subscribed(channel: try f.string("channel"), presence: presence)
    }

    private static func decodeSignedIn(_ f: Fields) throws(RecordingLineError) -> ClientEvent {
        let info = f.object["user_info"]
        return .signedIn(
            SignedInUser(
                id: try f.string("id"), userData: f.optional("user_data") ?? "",
                watchlist: f.object["watchlist"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                userInfo: info == .null ? nil : info))
    }

    private static func decodeAuthorization(_ f: Fields) throws(RecordingLineError) -> ClientEvent {
        .authorization(
            AuthorizationTrace(
                channel: try f.string("channel"), socketID: try f.string("socket_id"),
                authorizer: f.optional("authorizer") ?? "", startedAt: try f.number("started_at"),
                duration: try f.number("duration"),
                status: f.object["status"]?.intValue, responseExcerpt: f.optional("response"),
                auth: f.optional("auth"), channelData: f.optional("channel_data"),
                hasSharedSecret: f.object["has_shared_secret"]?.boolValue ?? false, error: f.optional("error")))
    }

    /// Reads a whole recording: the items up to the first damaged line, and the damage if any. A last line
    /// without its newline that does not parse is reported as truncated.
    public static func read(_ text: String) -> (items: [RecordingItem], damage: RecordingDamage?) {
        var items: [RecordingItem] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (i, raw) in lines.enumerated() {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            if line.isEmpty { continue }
            do throws(RecordingLineError) {
                let item = try decode(line)
                if items.isEmpty {
                    guard case .header = item else {
                        return (items, RecordingDamage(line: i + 1, reason: "not a pushtop recording (no header line)"))
                    }
                }
                items.append(item)
            } catch {
                let truncated = i == lines.count - 1
                return (
                    items,
                    RecordingDamage(line: i + 1, reason: truncated ? "truncated (\(error.reason))" : error.reason)
                )
            }
        }
        return (items, nil)
    }
}

/// Why one recording line cannot be read.
public struct RecordingLineError: Error, Sendable, Hashable {
    /// What is wrong with the line.
    public var reason: String
    /// An error saying `reason`.
    public init(_ reason: String) { self.reason = reason }
}
