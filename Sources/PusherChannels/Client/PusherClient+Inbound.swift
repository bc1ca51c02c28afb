import Logging
import PusherProtocol

extension PusherClient {
    // MARK: - Inbound

    /// One read burst from the transport, handled in one go and published as one batch.
    func receive(_ events: [TransportEvent], attempt: Int) {
        // One read: its events share the time it arrived.
        let t = now()
        let wall = wallClock()
        for event in events {
            handle(event, attempt: attempt, now: t, wall: wall)
        }
        flush()
    }

    func handle(_ item: TransportEvent, attempt: Int, now t: Double, wall: Double) {
        switch item {
        case .opened:
            break
        case .closed(let code, let reason):
            if attempt == machine.attempt { connection = nil }
            liveSockets.remove(attempt)
            perform(machine.handle(.socketClosed(attempt: attempt, code: code, reason: reason), now: t))
            if !closeWaiters.isEmpty { resumeCloseWaiters(finished: true) { $0.attempt == attempt } }
        case .malformed(let error):
            guard attempt == machine.attempt else { return }
            perform(machine.handle(.frameReceived(attempt: attempt), now: t))
            logger.warning("skipped a frame: \(error)")
            emit(.error(code: nil, message: "skipped a frame: \(error)"))
        case .message(let message, let raw):
            guard attempt == machine.attempt else { return }
            perform(machine.handle(.frameReceived(attempt: attempt), now: t))
            handle(message, raw: raw, attempt: attempt, now: t, wall: wall)
        }
    }

    func handle(_ message: PusherMessage, raw: String?, attempt: Int, now t: Double, wall: Double) {
        // An app's events (the bulk of a stream) cannot be protocol events, which all start with "pusher".
        guard message.event.utf8.first == UInt8(ascii: "p") else {
            return receiveChannelEvent(message, raw: raw, now: t, wall: wall)
        }
        switch message.event {
        case PusherEventName.connectionEstablished:
            connectionEstablished(message, attempt: attempt, now: t)
        case PusherEventName.error:
            errorReceived(message, attempt: attempt, now: t)
        case PusherEventName.signinSuccess:
            signinSucceeded(message)
        case PusherEventName.watchlistEvents:
            for change in WatchlistChange.changes(fromWatchlistData: message.dataJSON) {
                user.apply(change)
                emit(.watchlist(change))
            }
        case PusherEventName.ping:
            send(PusherMessage(event: PusherEventName.pong, data: .object([:])))
        case PusherEventName.pong:
            perform(machine.handle(.pongReceived(attempt: attempt), now: t))
        case PusherEventName.subscriptionSucceeded:
            subscriptionSucceeded(message)
        case PusherEventName.subscriptionError:
            subscriptionRefused(message)
        case PusherEventName.memberAdded:
            memberAdded(message)
        case PusherEventName.memberRemoved:
            memberRemoved(message)
        case PusherEventName.subscriptionCount:
            guard let channel = message.channel,
                let count = message.dataJSON?["subscription_count"]?.intValue
            else { return }
            emit(.subscriptionCount(channel: channel, count: count))
        default:
            if message.event.hasPrefix("pusher_internal:") { return }
            receiveChannelEvent(message, raw: raw, now: t, wall: wall)
        }
    }

    private func connectionEstablished(_ message: PusherMessage, attempt: Int, now t: Double) {
        guard let data = message.dataJSON, let socketID = data["socket_id"]?.stringValue else {
            emit(.error(code: nil, message: "connection_established without a socket_id"))
            return
        }
        let timeout = data["activity_timeout"]?.numberValue
        perform(
            machine.handle(.established(attempt: attempt, socketID: socketID, activityTimeout: timeout), now: t))
    }

    private func errorReceived(_ message: PusherMessage, attempt: Int, now t: Double) {
        let data = message.dataJSON
        let code = data?["code"]?.intValue
        let text = data?["message"]?.stringValue ?? message.dataText ?? "unknown error"
        emit(.error(code: code, message: text))
        perform(machine.handle(.errorReceived(attempt: attempt, code: code, message: text), now: t))
        // Pusher refuses a sign-in with 4009; a server without sign-in names the event it does not support.
        if user.phase == .awaitingServer, code == 4009 || text.contains(PusherEventName.signin) {
            signInFinished(failure: (nil, "the server refused the sign-in: \(code.map { "\($0) " } ?? "")\(text)"))
        }
    }

    /// A subscription the server refused: the user's own channel, or one of ours.
    private func subscriptionRefused(_ message: PusherMessage) {
        if let channel = message.channel, channel == user.serverToUserChannel {
            emit(
                .error(
                    code: nil,
                    message: "the server refused events to the user (\(channel)): \(message.dataText ?? "")"))
            return
        }
        guard let channel = message.channel, channels[channel] != nil else { return }
        let data = message.dataJSON
        let status = data?["status"]?.intValue
        let text =
            data?["error"]?.stringValue ?? data?["message"]?.stringValue ?? data?["type"]?.stringValue
            ?? message.dataText ?? "subscription refused"
        channels[channel]?.state = .failed(text)
        emit(.subscriptionError(channel: channel, status: status, message: text))
    }

    private func memberAdded(_ message: PusherMessage) {
        guard let channel = message.channel, channels[channel] != nil, let data = message.dataJSON,
            let userID = data["user_id"].flatMap(PresenceRoster.userID(from:))
        else { return }
        let member = PresenceMember(userID: userID, userInfo: data["user_info"])
        if channels[channel]!.roster.add(member) {
            emit(.memberAdded(channel: channel, member: member))
        }
    }

    private func memberRemoved(_ message: PusherMessage) {
        guard let channel = message.channel, channels[channel] != nil,
            let userID = message.dataJSON?["user_id"].flatMap(PresenceRoster.userID(from:)),
            let removed = channels[channel]!.roster.remove(userID: userID)
        else { return }
        emit(.memberRemoved(channel: channel, member: removed))
    }

    /// An event that is not the protocol's own: for a channel, or for the signed-in user.
    func receiveChannelEvent(_ message: PusherMessage, raw: String?, now t: Double, wall: Double) {
        let channel = message.channel ?? ""
        if let userChannel = user.serverToUserChannel, channel == userChannel, let id = user.user?.id {
            if !message.event.hasPrefix("pusher:") {
                emit(
                    .userEvent(
                        UserEvent(
                            userID: id, name: message.event, dataText: message.dataText,
                            receivedAt: wall)))
            }
            return
        }
        let kind = channels[channel]?.kind
        if kind == nil, message.channel != nil {
            // Not (or no longer) ours: an event in flight when an unsubscribe left, or a server's mistake.
            framesForUnknownChannels += 1
            return
        }
        if kind == .encrypted, !message.event.hasPrefix("pusher:") {
            receiveEncrypted(message, raw: raw, channel: channel, now: t)
            return
        }
        deliver(
            ChannelEvent(
                channel: channel, name: message.event, dataText: message.dataText,
                userID: message.userID, receivedAt: wall, rawFrame: raw))
    }

    func deliver(_ event: ChannelEvent) {
        emit(.event(event))
        if !bindings.isEmpty { bindings.dispatch(event) }
    }

    func subscriptionSucceeded(_ message: PusherMessage) {
        guard let channel = message.channel, var record = channels[channel] else { return }
        record.state = .subscribed
        var presence: PresenceSnapshot?
        if record.kind == .presence {
            let data = message.dataJSON
            record.roster.replace(withPresence: data?["presence"], me: record.roster.me)
            presence = record.roster.snapshot
        }
        channels[channel] = record
        emit(.subscribed(channel: channel, presence: presence))
    }
}
