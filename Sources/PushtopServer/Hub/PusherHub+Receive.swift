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
            send(
                ServerFrame.error(code: nil, message: "Invalid message: \(ErrorText.excerpt(error.description))"),
                to: id)
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
                send(ServerFrame.error(code: nil, message: "pusher:unsubscribe needs data.channel"), to: id)
                return
            }
            if connections[id]?.channels.contains(channel) == true {
                leave(channel: channel, connection: id)
            }
        case let name where name.hasPrefix(PusherEventName.clientPrefix):
            clientEvent(message, connection: id)
        case let name where name.hasPrefix("pusher:"):
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
        send(ServerFrame.error(code: nil, message: PusherMessageError.binaryFrame(size: size).description), to: id)
    }

    // MARK: Client events

    func clientEvent(_ message: PusherMessage, connection id: ConnectionID) {
        let reject = { (why: String) in
            self.send(ServerFrame.error(code: nil, message: "Client event rejected - \(why)"), to: id)
        }
        guard limits.clientEventsEnabled else { return reject("client events are disabled for this app") }
        guard let channel = message.channel else { return reject("no channel given") }
        guard let record = connections[id], record.channels.contains(channel) else {
            return reject("not subscribed to channel \(ErrorText.excerpt(channel))")
        }
        guard ChannelKind(channelName: channel).allowsClientEvents else {
            return reject("only supported on private and presence channels")
        }
        guard message.event.count <= limits.maxEventNameLength else {
            return reject("event name longer than \(limits.maxEventNameLength) characters")
        }
        let data = message.dataText ?? ""
        guard data.utf8.count <= limits.maxEventDataBytes else {
            return reject("data of \(data.utf8.count) bytes exceeds the \(limits.maxEventDataBytes)-byte limit")
        }
        guard connections[id]!.clientEvents.take(now: .now) else {
            send(ServerFrame.error(code: 4301, message: "Client event rejected due to rate limit"), to: id)
            return
        }
        let userID = record.presenceUserIDs[channel]
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
