import NIOCore
import NIOWebSocket
import PusherProtocol
import PushtopServer

/// What the relay reads in the messages it passes: the rows of the console, what the recovery tracker needs, and
/// the frame faults (refused subscriptions; dropped, duplicated and late events).
extension Relay {
    func decode(_ payload: ByteBuffer) -> PusherMessage? {
        payload.withUnsafeReadableBytes { bytes in try? decoder.decode(bytes) }
    }

    /// A message from the client; `false` when a fault keeps it from the upstream.
    func observeFromClient(_ payload: ByteBuffer) -> Bool {
        guard let message = decode(payload) else { return true }
        switch message.event {
        case PusherEventName.subscribe:
            let data = message.dataJSON
            guard let channel = data?["channel"]?.stringValue else { return true }
            if let entry = core.faults.refusal(
                channel: channel, socketID: socketID, userID: userID, connectionNumber: number)
            {
                refuseSubscription(channel, entry)
                return false
            }
            if channel.hasPrefix("presence-"), let text = data?["channel_data"]?.stringValue,
                let id = JSONValue.parseIfJSON(text)?["user_id"]
            {
                userID = id.stringValue ?? id.jsonString
            }
            pendingSubscriptions[channel] = .now
        case PusherEventName.unsubscribe:
            guard let channel = message.dataJSON?["channel"]?.stringValue else { return true }
            if channels.remove(channel) != nil { core.occupancy.left(channel) }
            core.console.emit {
                var row = ConsoleRow(type: .unsubscribed, timeMs: ConsoleClock.nowMs())
                row.socketID = socketID
                row.channel = channel
                return row
            }
        case "pusher:signin":
            if let text = message.dataJSON?["user_data"]?.stringValue, let id = JSONValue.parseIfJSON(text)?["id"] {
                userID = id.stringValue ?? id.jsonString
            }
        case let event where event.hasPrefix("client-"):
            guard core.console.isActive, let channel = message.channel else { return true }
            var row = ConsoleRow(type: .clientEvent, timeMs: ConsoleClock.nowMs())
            row.socketID = socketID
            row.channel = channel
            row.event = event
            row.userID = channel.hasPrefix("presence-") ? userID : nil
            let data = message.dataText ?? ""
            ConsoleRowData.fill(&row, data)
            core.ledger.open(
                DeliveryLedger.Key(channel: channel, event: event, data: data), row: row, on: eventLoop)
        default:
            break
        }
        return true
    }

    /// Whether a message from the upstream must be decoded. With nobody watching the console and no event fault,
    /// only the protocol's own messages matter (the socket id, subscriptions, errors: each names `pusher`), so an
    /// app's event passes unread; a message whose data says `pusher` is read all the same, which costs only time.
    func mustRead(_ payload: ByteBuffer) -> Bool {
        if core.console.isActive || core.faults.hasEventRules || socketID == nil { return true }
        return payload.withUnsafeReadableBytes { Self.contains($0, Self.pusher) }
    }

    private static let pusher = Array("pusher".utf8)

    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = 1
                while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return true }
            }
            index += 1
        }
        return false
    }

    /// A message from the upstream: how many times to pass it on (0: dropped or held back by a fault).
    func observeFromUpstream(_ payload: inout ByteBuffer) -> Int {
        guard let message = decode(payload) else { return 1 }
        let event = message.event
        switch event {
        case PusherEventName.connectionEstablished:
            guard socketID == nil, let id = message.dataJSON?["socket_id"]?.stringValue else { return 1 }
            established(socketID: id)
            if let announced = core.configuration.announcedActivityTimeout,
                let rewritten = Self.announcing(activityTimeout: announced, in: message)
            {
                payload = rewritten
            }
        case "pusher_internal:subscription_succeeded":
            guard let channel = message.channel else { return 1 }
            subscribed(channel)
        case "pusher:subscription_error":
            subscriptionRefused(message)
        case PusherEventName.error:
            upstreamError(message)
        case "pusher_internal:member_added", "pusher_internal:member_removed":
            memberChanged(message, event: event)
        default:
            if event.hasPrefix("client-"), let channel = message.channel, let socketID, core.console.isActive {
                core.ledger.deliver(
                    DeliveryLedger.Key(channel: channel, event: event, data: message.dataText ?? ""), to: socketID,
                    orOpen: nil, on: eventLoop)
            }
        }
        return copiesAfterEventFault(message, event: event, payload: payload)
    }

    /// `pusher:connection_established` with `activity_timeout` lowered to `seconds` (`nil`: it is that low already).
    static func announcing(activityTimeout seconds: Int, in message: PusherMessage) -> ByteBuffer? {
        guard var data = message.dataJSON?.objectValue else { return nil }
        if let current = data["activity_timeout"]?.intValue, current <= seconds { return nil }
        data["activity_timeout"] = .number(Double(seconds))
        let frame = JSONValue.orderedObject([
            ("event", .string(PusherEventName.connectionEstablished)),
            ("data", .string(JSONValue.object(data).jsonString)),
        ])
        return ByteBuffer(string: frame)
    }

    private func subscriptionRefused(_ message: PusherMessage) {
        let data = message.dataJSON
        if let channel = message.channel { pendingSubscriptions[channel] = nil }
        core.console.emit {
            var row = ConsoleRow(type: .error, timeMs: ConsoleClock.nowMs())
            row.socketID = socketID
            row.channel = message.channel
            row.status = data?["status"]?.intValue
            row.reason = data?["error"]?.stringValue ?? data?["message"]?.stringValue ?? message.dataText
            row.rule = data?["type"]?.stringValue ?? "subscription"
            return row
        }
    }

    private func upstreamError(_ message: PusherMessage) {
        let data = message.dataJSON
        core.console.emit {
            var row = ConsoleRow(type: .error, timeMs: ConsoleClock.nowMs())
            row.socketID = socketID
            row.code = data?["code"]?.intValue
            row.reason = data?["message"]?.stringValue ?? message.dataText
            row.rule = "pusher_error"
            return row
        }
    }

    /// A presence change for the console, matched in the delivery ledger.
    private func memberChanged(_ message: PusherMessage, event: String) {
        guard core.console.isActive, let channel = message.channel, let socketID else { return }
        let data = message.dataJSON
        let user = data?["user_id"].map { $0.stringValue ?? $0.jsonString } ?? ""
        let name = event == "pusher_internal:member_added" ? "member_added" : "member_removed"
        var row = ConsoleRow(type: .presenceEvent, timeMs: ConsoleClock.nowMs())
        row.channel = channel
        row.event = name
        row.userID = user
        row.userInfo = data?["user_info"]
        core.ledger.deliver(
            DeliveryLedger.Key(channel: channel, event: name, data: user), to: socketID, orOpen: row,
            on: eventLoop)
    }

    /// How many times an upstream event is passed on under the event faults (0: dropped or held back).
    @inline(__always)
    private func copiesAfterEventFault(_ message: PusherMessage, event: String, payload: ByteBuffer) -> Int {
        guard core.faults.hasEventRules, !event.hasPrefix("pusher:"), !event.hasPrefix("pusher_internal:"),
            let entry = core.faults.eventFault(
                channel: message.channel, event: event, socketID: socketID, userID: userID, connectionNumber: number)
        else { return 1 }
        var row = faultRow(entry)
        row.channel = message.channel
        row.event = event
        switch entry.rule.action {
        case .drop:
            row.reason = "dropped"
            core.post(row)
            return 0
        case .duplicate:
            row.reason = "sent twice"
            core.post(row)
            return 2
        case .delay(let ms):
            row.reason = "delayed \(ms) ms"
            core.post(row)
            eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(ms))) { [self] in
                guard relays, let client else { return }
                client.send(opcode: .text, payload: payload)
                client.flush()
            }
            return 0
        default:
            return 1
        }
    }

    private func established(socketID id: String) {
        socketID = id
        core.register(socketID: id, relay: self)
        establishedAt = .now
        core.console.emit {
            var row = ConsoleRow(type: .connection, timeMs: ConsoleClock.nowMs())
            row.socketID = id
            row.remoteAddress = info.remoteAddress
            row.origin = info.origin
            row.protocolVersion = protocolVersion
            row.clientLibrary = info.clientLibrary
            row.clientVersion = info.clientVersion
            row.tls = info.tls
            return row
        }
        core.recoveries.connected(self)
        for entry in core.faults.connectionEntries() { arm(entry) }
    }

    private func subscribed(_ channel: String) {
        if channels.insert(channel).inserted { core.occupancy.joined(channel) }
        pendingSubscriptions[channel] = nil
        core.console.emit {
            var row = ConsoleRow(type: .subscribed, timeMs: ConsoleClock.nowMs())
            row.socketID = socketID
            row.channel = channel
            row.userID = channel.hasPrefix("presence-") ? userID : nil
            return row
        }
        core.recoveries.subscribed(self, channel: channel)
        guard !waitingForChannel.isEmpty else { return }
        let waiting = waitingForChannel
        waitingForChannel = []
        for entry in waiting { fire(entry) }
    }

    /// Answers a subscription the way a server refuses one, instead of relaying it.
    private func refuseSubscription(_ channel: String, _ entry: FaultBook.Entry) {
        let frame = JSONValue.orderedObject([
            ("event", .string("pusher:subscription_error")),
            ("channel", .string(channel)),
            (
                "data",
                .object([
                    "type": .string("AuthError"), "error": .string("Subscription refused by pushtop proxy (fault)"),
                    "status": .number(403),
                ])
            ),
        ])
        sendToClient(opcode: .text, payload: ByteBuffer(string: frame))
        client?.flush()
        var row = faultRow(entry)
        row.channel = channel
        row.event = PusherEventName.subscribe
        row.reason = "subscription refused (pusher:subscription_error, status 403)"
        row.status = 403
        core.post(row)
    }

    func faultRow(_ entry: FaultBook.Entry) -> ConsoleRow {
        var row = ConsoleRow(type: .fault, timeMs: ConsoleClock.nowMs())
        row.socketID = socketID
        row.userID = userID
        row.fault = entry.text
        return row
    }
}
