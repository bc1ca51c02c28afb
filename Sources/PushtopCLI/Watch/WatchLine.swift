import PusherProtocol

/// Turns client events into `pushtop watch`'s JSON lines (one object per line, always with "type" first).
///
/// Public so that other programs can print the same format.
public enum WatchLine {
    /// The line for an event, or `nil` for events `watch` does not print (subscribing, pong, closures).
    public static func encode(_ event: ClientEvent) -> String? {
        if case .event = event {
            var bytes: [UInt8] = []
            _ = append(event, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        return jsonValueLine(event)
    }

    /// Appends the line for an event (without a newline) to `out`, the same bytes as ``encode(_:)``; returns
    /// `false`, appending nothing, for events `watch` does not print.
    ///
    /// A channel event's line is written straight into `out`: its `data` text is rewritten in compact form from its
    /// bytes (`CompactJSON`, in PusherProtocol), with no `JSONValue` or `String` in between, so a line usually costs
    /// no allocation.
    public static func append(_ event: ClientEvent, to out: inout [UInt8]) -> Bool {
        guard case .event(let e) = event else {
            guard let line = jsonValueLine(event) else { return false }
            out.append(contentsOf: line.utf8)
            return true
        }
        CompactJSON.appendRaw(#"{"type":"event","channel":"#, to: &out)
        CompactJSON.appendString(e.channel, to: &out)
        CompactJSON.appendRaw(#","event":"#, to: &out)
        CompactJSON.appendString(e.name, to: &out)
        CompactJSON.appendRaw(#","data":"#, to: &out)
        if let text = e.dataText {
            // As `ChannelEvent.data`: the text's JSON, or the text itself as a string when it is not JSON.
            if !CompactJSON.append(text, to: &out) { CompactJSON.appendString(text, to: &out) }
        } else {
            CompactJSON.appendRaw("null", to: &out)
        }
        if let userID = e.userID {
            CompactJSON.appendRaw(#","user_id":"#, to: &out)
            CompactJSON.appendString(userID, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return true
    }

    /// The line built from `JSONValue`s: how every line but a channel event's is made, and for a channel event the
    /// reference that ``append(_:to:)`` matches byte for byte (the tests compare them).
    static func jsonValueLine(_ event: ClientEvent) -> String? {
        switch event {
        case .state(let change):
            return stateLine(change)
        case .connectingIn(let delay):
            return object([("type", "connecting_in"), ("delay", .number((delay * 1000).rounded() / 1000))])
        case .subscribed(let channel, let presence):
            return subscribedLine(channel: channel, presence: presence)
        case .subscriptionError(let channel, let status, let message):
            return object([
                ("type", "subscription_error"), ("channel", .string(channel)),
                ("status", status.map { .number(Double($0)) } ?? .null), ("message", .string(message)),
            ])
        case .unsubscribed(let channel):
            return object([("type", "unsubscribed"), ("channel", .string(channel))])
        case .event(let e):
            return eventLine(e)
        case .memberAdded(let channel, let m):
            return object([
                ("type", "member_added"), ("channel", .string(channel)), ("user_id", .string(m.userID)),
                ("user_info", m.userInfo ?? .null),
            ])
        case .memberRemoved(let channel, let m):
            return object([("type", "member_removed"), ("channel", .string(channel)), ("user_id", .string(m.userID))])
        case .subscriptionCount(let channel, let count):
            return object([
                ("type", "subscription_count"), ("channel", .string(channel)), ("count", .number(Double(count))),
            ])
        case .error(let code, let message):
            return error(code: code, message: message)
        case .decryptionError(let channel, let event, let message):
            return object([
                ("type", "decryption_error"), ("channel", .string(channel)), ("event", .string(event)),
                ("message", .string(message)),
            ])
        case .signedIn(let user):
            return signInLine(user)
        case .signInFailed(let status, let message):
            return object([
                ("type", "signin_error"), ("status", status.map { .number(Double($0)) } ?? .null),
                ("message", .string(message)),
            ])
        case .signedOut(let userID):
            return object([("type", "signout"), ("user_id", .string(userID))])
        case .userEvent(let e):
            return object([
                ("type", "user_event"), ("user_id", .string(e.userID)), ("event", .string(e.name)),
                ("data", e.data ?? .null),
            ])
        case .watchlist(let change):
            return object([
                ("type", "watchlist"), ("status", .string(change.status.rawValue)),
                ("user_ids", .array(change.userIDs.map(JSONValue.string))),
            ])
        case .subscribing, .closed, .pong, .authorization:
            return nil
        }
    }

    /// The socket id only once connected.
    private static func stateLine(_ change: StateChange) -> String {
        var fields: [(String, JSONValue)] = [
            ("type", "state"), ("previous", .string(change.previous.rawValue)),
            ("current", .string(change.current.rawValue)),
        ]
        if change.current == .connected, let socketID = change.socketID {
            fields.append(("socket_id", .string(socketID)))
        }
        return object(fields)
    }

    /// The members only for a presence channel.
    private static func subscribedLine(channel: String, presence: PresenceSnapshot?) -> String {
        var fields: [(String, JSONValue)] = [("type", "subscribed"), ("channel", .string(channel))]
        if let presence {
            fields.append(("me", presence.me.map(JSONValue.string) ?? .null))
            fields.append(("members", .array(presence.members.map(member))))
        }
        return object(fields)
    }

    private static func eventLine(_ e: ChannelEvent) -> String {
        var fields: [(String, JSONValue)] = [
            ("type", "event"), ("channel", .string(e.channel)), ("event", .string(e.name)),
            ("data", e.data ?? .null),
        ]
        if let userID = e.userID { fields.append(("user_id", .string(userID))) }
        return object(fields)
    }

    /// The user data as JSON when it is JSON (it is a JSON text by Pusher's rules), else as a string.
    private static func signInLine(_ user: SignedInUser) -> String {
        object([
            ("type", "signin"), ("user_id", .string(user.id)),
            ("user_data", JSONValue.parsedOrString(user.userData)),
        ])
    }

    /// The `frame` line of `watch --frames`: one WebSocket frame, either direction, its text exactly as on the wire.
    public static func frame(_ frame: WireFrame) -> String {
        var fields: [(String, JSONValue)] = [
            ("type", "frame"), ("dir", .string(frame.direction.rawValue)),
            ("t", .number((frame.time * 1_000_000).rounded() / 1_000_000)), ("size", .number(Double(frame.size))),
            ("opcode", .string(frame.kind.rawValue)), ("text", .string(frame.text)),
        ]
        if let code = frame.closeCode { fields.append(("code", .number(Double(code)))) }
        return object(fields)
    }

    /// The `error` line of `watch`: an error with its Pusher code, or `null` when it has none, and its message.
    public static func error(code: Int?, message: String) -> String {
        object([("type", "error"), ("code", code.map { .number(Double($0)) } ?? .null), ("message", .string(message))])
    }

    private static func member(_ m: PresenceMember) -> JSONValue {
        .object(["user_id": .string(m.userID), "user_info": m.userInfo ?? .object([:])])
    }

    /// A JSON object with its keys in the given order (``JSONValue/orderedObject(_:)``).
    public static func object(_ fields: [(String, JSONValue)]) -> String {
        JSONValue.orderedObject(fields)
    }
}
