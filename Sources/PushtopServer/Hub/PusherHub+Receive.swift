import PusherProtocol

extension PusherHub {
    /// Handles one text message from a client.
    ///
    /// Any message counts as activity (it answers a pending `pusher:ping`). Malformed frames and rule
    /// violations are answered with `pusher:error`; the connection stays open, as with Pusher.
    public func receive(_ text: String, from id: ConnectionID) {
        handleMessage(text, from: id)
        endTurn()
    }

    /// Handles one text message without ending the turn (a read burst is handled as one turn).
    func handleMessage(_ text: String, from id: ConnectionID) {
        guard connections[id] != nil else { return }
        stats.messagesIn += 1
        connections[id]?.lastActivity = .now
        connections[id]?.pingSentAt = nil

        let message: PusherMessage
        do {
            message = try PusherMessage(decoding: text)
        } catch {
            let why = "Invalid message: \(ErrorText.excerpt(error.description))"
            consoleError(id, code: nil, reason: why, rule: "malformed_message")
            send(ServerFrame.error(code: nil, message: why), to: id)
            return
        }
        switch message.event {
        case PusherEventName.ping:
            send(ServerFrame.pong, to: id)
        case PusherEventName.pong:
            break
        case PusherEventName.subscribe:
            subscribe(message, connection: id)
        case PusherEventName.signin:
            signIn(message, connection: id)
        case PusherEventName.unsubscribe:
            guard let channel = message.dataJSON?["channel"]?.stringValue ?? message.channel else {
                consoleError(
                    id, code: nil, reason: "pusher:unsubscribe needs data.channel", rule: "malformed_unsubscribe")
                send(ServerFrame.error(code: nil, message: "pusher:unsubscribe needs data.channel"), to: id)
                return
            }
            if connections[id]?.channels.contains(channel) == true {
                leave(channel: channel, connection: id)
            }
        case let name where name.hasPrefix(PusherEventName.clientPrefix):
            clientEvent(message, connection: id)
        case let name where name.hasPrefix("pusher:"):
            consoleError(
                id, code: nil, reason: "Unsupported event \(ErrorText.excerpt(name))", rule: "unsupported_event")
            send(ServerFrame.error(code: nil, message: "Unsupported event \(ErrorText.excerpt(name))"), to: id)
        default:
            logger.debug("ignoring a client message", metadata: ["event": "\(ErrorText.excerpt(message.event))"])
        }
    }

    /// Receives a binary frame: Pusher frames are text, so the client is told and the frame is ignored.
    public func receiveBinary(size: Int, from id: ConnectionID) {
        handleBinary(size: size, from: id)
        endTurn()
    }

    func handleBinary(size: Int, from id: ConnectionID) {
        consoleError(id, code: nil, reason: "Binary frame of \(size) bytes", rule: "binary_frame")
        send(ServerFrame.error(code: nil, message: PusherMessageError.binaryFrame(size: size).description), to: id)
    }

    // MARK: Client events

    func clientEvent(_ message: PusherMessage, connection id: ConnectionID) {
        let reject = { (why: String, rule: String) in
            let text = "Client event rejected - \(why)"
            self.consoleClientError(
                id, code: nil, reason: text, rule: rule, channel: message.channel, event: message.event)
            self.send(ServerFrame.error(code: nil, message: text), to: id)
        }
        guard limits.clientEventsEnabled else {
            return reject("client events are disabled for this app", "client_events_disabled")
        }
        guard let channel = message.channel else { return reject("no channel given", "channel_missing") }
        guard let record = connections[id], record.channels.contains(channel) else {
            return reject("not subscribed to channel \(ErrorText.excerpt(channel))", "not_subscribed")
        }
        guard ChannelKind(channelName: channel).allowsClientEvents else {
            return reject("only supported on private and presence channels", "channel_type")
        }
        guard message.event.count <= limits.maxEventNameLength else {
            return reject("event name longer than \(limits.maxEventNameLength) characters", "max_event_name_length")
        }
        let data = message.dataText ?? ""
        guard data.utf8.count <= limits.maxEventDataBytes else {
            return reject(
                "data of \(data.utf8.count) bytes exceeds the \(limits.maxEventDataBytes)-byte limit",
                "max_event_data_bytes")
        }
        guard connections[id]!.clientEvents.take(now: .now) else {
            let text = "Client event rejected due to rate limit"
            consoleClientError(
                id, code: 4301, reason: "\(text) (client_events_per_second: \(limits.clientEventsPerSecond))",
                rule: "client_events_per_second", channel: channel, event: message.event)
            send(ServerFrame.error(code: 4301, message: text), to: id)
            return
        }
        let userID = record.presenceUserIDs[channel]
        consoleClientEvent(
            socketID: record.socketID, channel: channel, event: message.event, data: data, userID: userID)
        webhooks?.enqueue(
            .clientEvent(
                channel: channel, event: message.event, data: data, socketID: record.socketID,
                userID: userID))
        let frame = ServerFrame.event(message.event, channel: channel, data: data, userID: userID)
        if backplane.isClustered {
            backplane.send(
                .clientEvent(
                    channel: channel, name: message.event, data: data, userID: userID,
                    socketID: record.socketID))
        }
        guard let subscribers = channels[channel]?.subscribers else { return }
        stats.eventsPublished += 1
        for (other, outbox) in subscribers where other != id {
            deliver(frame, via: outbox, to: other)
            stats.deliveries += 1
        }
        if ChannelNames.isCache(channel) {
            cache[channel] = CachedEvent(name: message.event, data: data, at: .now)
        }
    }
}
