import PusherProtocol

extension PusherHub {
    /// Handles `pusher:subscribe`: validates the name, verifies the signature of private, presence and
    /// encrypted channels, joins presence members, and answers with `subscription_succeeded`.
    func subscribe(_ message: PusherMessage, connection id: ConnectionID) {
        guard let record = connections[id] else { return }
        guard let data = message.dataJSON, let channel = data["channel"]?.stringValue else {
            send(ServerFrame.error(code: nil, message: "pusher:subscribe needs data.channel"), to: id)
            return
        }
        // A name is repeated back at most as an excerpt: a huge one must not be echoed three times.
        let shown = ErrorText.excerpt(channel)
        let fail = { (type: String, why: String, status: Int) in
            if type == "AuthError" { self.stats.authFailures += 1 }
            self.send(ServerFrame.error(code: nil, message: why), to: id)
            self.send(ServerFrame.subscriptionError(channel: shown, type: type, message: why, status: status), to: id)
        }
        let isUserChannel = channel.hasPrefix(PusherEventName.serverToUserPrefix)
        if isUserChannel {
            if let why = serverToUserRefusal(channel, connection: id) { return fail("AuthError", why, 403) }
        } else {
            do {
                try ChannelName.validate(channel)
            } catch {
                return fail("InvalidChannel", "Invalid channel name '\(shown)': \(error.description)", 400)
            }
        }
        if record.channels.contains(channel) {
            send(ServerFrame.error(code: nil, message: "Existing subscription to channel \(shown)"), to: id)
            return
        }

        let kind = ChannelKind(channelName: channel)
        var member: (userID: String, info: JSONValue?)?
        if kind.requiresAuthorization {
            let channelData: String?
            switch data["channel_data"] {
            case .string(let s)?: channelData = s
            case nil, .null?: channelData = nil
            case let other?: channelData = other.jsonString
            }
            guard let auth = data["auth"]?.stringValue, !auth.isEmpty else {
                return fail("AuthError", "Subscription to \(shown) needs an auth signature", 401)
            }
            let parts = auth.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else {
                return fail("AuthError", "Auth value for subscription to \(shown) is invalid: should be of format 'key:signature'", 401)
            }
            guard String(parts[0]) == app.key else {
                return fail("AuthError", "Invalid key '\(ErrorText.excerpt(String(parts[0])))' in auth value for subscription to \(shown)", 401)
            }
            let signed = kind == .presence ? (channelData ?? "") : nil
            guard ChannelAuthSignature.verify(
                auth: auth, key: app.key, secret: app.secret, socketID: record.socketID, channel: channel,
                channelData: signed)
            else {
                let stringToSign = ChannelAuthSignature.stringToSign(
                    socketID: record.socketID, channel: channel, channelData: signed)
                return fail("AuthError", "Invalid signature: Expected HMAC SHA256 hex digest of \(ErrorText.excerpt(stringToSign)), but got \(ErrorText.excerpt(String(parts[1])))", 401)
            }
            if kind == .presence {
                switch presenceMember(channelData: channelData ?? "", channel: channel) {
                case .success(let m): member = m
                case .failure(let why): return fail("PresenceError", why.message, why.status)
                }
            }
        }

        // In a cluster the shared registry decides members, counts and webhooks (see ``clusterJoined``).
        let shared = clusterShared && !isUserChannel
        let wasOccupied = channels[channel] != nil
        var channelRecord = channels[channel] ?? ChannelRecord()
        var isNewMember = false
        if let member {
            if var existing = channelRecord.members[member.userID] {
                existing.connections.insert(id)
                existing.info = member.info
                channelRecord.members[member.userID] = existing
            } else {
                guard shared || channelRecord.members.count < limits.maxPresenceMembers else {
                    return fail("LimitReached", "Presence channel \(channel) is full: the limit is \(limits.maxPresenceMembers) members", 403)
                }
                channelRecord.members[member.userID] = .init(info: member.info, connections: [id])
                channelRecord.memberOrder.append(member.userID)
                isNewMember = true
            }
            connections[id]?.presenceUserIDs[channel] = member.userID
        }
        channelRecord.subscribers[id] = record.outbox
        channels[channel] = channelRecord
        connections[id]?.channels.insert(channel)
        if shared {
            backplane.send(.subscribed(
                channel: channel, socketID: record.socketID,
                member: member.map { ClusterMember(userID: $0.userID, info: $0.info) }))
            // A presence subscription succeeds when the cluster's roster arrives (``clusterJoined``).
            if member == nil { send(ServerFrame.subscriptionSucceeded(channel: channel, presence: nil), to: id) }
        } else {
            let decides = !backplane.isClustered
            if decides, !wasOccupied, !isUserChannel { webhooks?.enqueue(.channelOccupied(channel: channel)) }
            if decides, let member, isNewMember { webhooks?.enqueue(.memberAdded(channel: channel, userID: member.userID)) }

            let presence: JSONValue? = member == nil ? Optional.none : channelRecord.presenceJSON
            send(ServerFrame.subscriptionSucceeded(channel: channel, presence: presence), to: id)
            if let member, isNewMember {
                let frame = ServerFrame.memberAdded(channel: channel, userID: member.userID, info: member.info)
                for (other, outbox) in channelRecord.subscribers where other != id {
                    deliver(frame, via: outbox, to: other)
                }
            }
            if kind != .presence, !isUserChannel { announceSubscriptionCount(channel) }
        }
        if ChannelNames.isCache(channel) {
            if let cached = cache[channel], ContinuousClock.now - cached.at < Self.cacheTTL {
                send(ServerFrame.event(cached.name, channel: channel, data: cached.data), to: id)
            } else {
                send(ServerFrame.cacheMiss(channel: channel), to: id)
                webhooks?.enqueue(.cacheMiss(channel: channel))
            }
        }
    }

    struct PresenceRefusal: Error {
        var message: String
        var status: Int
    }

    /// Reads `{"user_id":…, "user_info":…}` from presence `channel_data`, within Pusher's size limits.
    func presenceMember(channelData: String, channel: String) -> Result<(userID: String, info: JSONValue?), PresenceRefusal> {
        guard let parsed = JSONValue.parseIfJSON(channelData), case .object(let fields) = parsed else {
            return .failure(.init(message: "Presence channel \(ErrorText.excerpt(channel)) needs channel_data holding a JSON object", status: 400))
        }
        let userID: String
        switch fields["user_id"] {
        case .string(let s)?: userID = s
        case .number(let n)?: userID = JSONValue.number(n).jsonString
        default:
            return .failure(.init(message: "channel_data for \(ErrorText.excerpt(channel)) must have a user_id (string or number)", status: 400))
        }
        guard !userID.isEmpty, userID.count <= limits.maxUserIDLength else {
            return .failure(.init(message: "user_id must be 1 to \(limits.maxUserIDLength) characters", status: 400))
        }
        let info = fields["user_info"]
        if let info, info.jsonString.utf8.count > limits.maxUserInfoBytes {
            return .failure(.init(
                message: "user_info of \(info.jsonString.utf8.count) bytes exceeds the \(limits.maxUserInfoBytes)-byte limit",
                status: 413))
        }
        return .success((userID, info))
    }

    /// Removes a connection from a channel: announces a member's departure when it was their last connection,
    /// updates the subscription count, and forgets an empty channel.
    func leave(channel: String, connection id: ConnectionID) {
        connections[id]?.channels.remove(channel)
        let userID = connections[id]?.presenceUserIDs.removeValue(forKey: channel)
        guard var record = channels[channel] else { return }
        let isUserChannel = channel.hasPrefix(PusherEventName.serverToUserPrefix)
        // In a cluster the shared registry announces departures and counts, and owns the webhooks.
        let shared = clusterShared && !isUserChannel
        let decides = !backplane.isClustered
        if shared, let socketID = connections[id]?.socketID {
            backplane.send(.left(channel: channel, socketID: socketID, presence: userID != nil))
        }
        record.subscribers[id] = nil
        var departed: String?
        if let userID, var member = record.members[userID] {
            member.connections.remove(id)
            if member.connections.isEmpty {
                record.members[userID] = nil
                record.memberOrder.removeAll { $0 == userID }
                departed = userID
            } else {
                record.members[userID] = member
            }
        }
        if decides, let departed { webhooks?.enqueue(.memberRemoved(channel: channel, userID: departed)) }
        if record.subscribers.isEmpty {
            channels[channel] = nil
            if decides, !isUserChannel {
                webhooks?.enqueue(.channelVacated(channel: channel))
            }
            return
        }
        channels[channel] = record
        if shared { return }
        if let departed {
            let frame = ServerFrame.memberRemoved(channel: channel, userID: departed)
            for (other, outbox) in record.subscribers { deliver(frame, via: outbox, to: other) }
        }
        if ChannelKind(channelName: channel) != .presence { announceSubscriptionCount(channel) }
    }

    /// Tells a channel's subscribers how many they are. On a busy channel (over
    /// ``busyChannelSubscribers``) the count goes out at the next sweep (about once a second), with the latest
    /// figure: otherwise N clients joining would cost N² frames.
    func announceSubscriptionCount(_ channel: String) {
        guard subscriptionCountEvents, let record = channels[channel] else { return }
        guard record.subscribers.count <= Self.busyChannelSubscribers else {
            pendingSubscriptionCounts.insert(channel)
            return
        }
        let frame = ServerFrame.subscriptionCount(channel: channel, count: record.subscribers.count)
        for (id, outbox) in record.subscribers { deliver(frame, via: outbox, to: id) }
    }

    /// Subscribers above which `subscription_count` events are coalesced to one per sweep.
    static let busyChannelSubscribers = 100

    /// Sends the coalesced `subscription_count` of busy channels.
    func flushSubscriptionCounts() {
        guard !pendingSubscriptionCounts.isEmpty else { return }
        let names = pendingSubscriptionCounts
        pendingSubscriptionCounts = []
        for name in names {
            guard let record = channels[name], !record.subscribers.isEmpty else { continue }
            let count = clusterCounts.removeValue(forKey: name) ?? record.subscribers.count
            let frame = ServerFrame.subscriptionCount(channel: name, count: count)
            for (id, outbox) in record.subscribers { deliver(frame, via: outbox, to: id) }
        }
    }
}
