import PusherProtocol

extension PusherHub {
    /// Handles `pusher:subscribe`: asks ``SubscriptionAdmission`` (name, signature, `channel_data`, presence limit),
    /// then applies its decision: joins the channel and answers with `subscription_succeeded`, or refuses.
    func subscribe(_ message: PusherMessage, connection id: ConnectionID) {
        guard let record = connections[id] else { return }
        let subscriber = SubscriptionAdmission.Subscriber(
            socketID: record.socketID, channels: record.channels, signedInUserID: users.userOf[id])
        let decision = admission.decide(message.dataJSON, from: subscriber, clusterDecidesMembers: clusterShared) {
            [channels] channel, userID in
            let members = channels[channel]?.members
            return (members?.count ?? 0, members?[userID] != nil)
        }
        switch decision {
        case .malformed(let why):
            consoleError(id, code: nil, reason: why, rule: "malformed_subscribe")
            send(ServerFrame.error(code: nil, message: why), to: id)
        case .duplicate(let why):
            consoleError(id, code: nil, reason: why, rule: "already_subscribed")
            send(ServerFrame.error(code: nil, message: why), to: id)
        case .refused(let refusal):
            if refusal.type == "AuthError" { stats.authFailures += 1 }
            consoleError(
                id, code: nil, reason: refusal.message, rule: Self.subscriptionRule(refusal), channel: refusal.channel,
                status: refusal.status)
            send(ServerFrame.error(code: nil, message: refusal.message), to: id)
            send(
                ServerFrame.subscriptionError(
                    channel: refusal.channel, type: refusal.type, message: refusal.message,
                    status: refusal.status), to: id)
        case .admitted(let admitted):
            join(admitted, connection: id, outlet: record.outbox, socketID: record.socketID)
            replayCache(admitted.channel, to: id)
        }
    }

    /// Adds an admitted subscription to the channel's records, then tells whoever decides (the cluster's
    /// registry, or this node) about it.
    private func join(
        _ admitted: SubscriptionAdmission.Admitted, connection id: ConnectionID,
        outlet: ConnectionOutlet, socketID: String
    ) {
        let channel = admitted.channel
        let wasOccupied = channels[channel] != nil
        var channelRecord = channels[channel] ?? ChannelRecord()
        var isNewMember = false
        if let member = admitted.member {
            if var existing = channelRecord.members[member.userID] {
                existing.connections.insert(id)
                existing.info = member.info
                channelRecord.members[member.userID] = existing
            } else {
                channelRecord.members[member.userID] = .init(info: member.info, connections: [id])
                channelRecord.memberOrder.append(member.userID)
                isNewMember = true
            }
            connections[id]?.presenceUserIDs[channel] = member.userID
        }
        channelRecord.subscribers[id] = outlet
        channels[channel] = channelRecord
        connections[id]?.channels.insert(channel)
        consoleSubscription(.subscribed, socketID: socketID, channel: channel, userID: admitted.member?.userID)
        // In a cluster the shared registry decides members, counts and webhooks (see ``clusterJoined``).
        if clusterShared && !admitted.isUserChannel {
            backplane.send(
                .subscribed(
                    channel: channel, socketID: socketID,
                    member: admitted.member.map { ClusterMember(userID: $0.userID, info: $0.info) }))
            // A presence subscription succeeds when the cluster's roster arrives (``clusterJoined``).
            if admitted.member == nil {
                send(ServerFrame.subscriptionSucceeded(channel: channel, presence: nil), to: id)
            }
        } else {
            joinedLocally(
                admitted, connection: id, record: channelRecord, wasOccupied: wasOccupied,
                isNewMember: isNewMember)
        }
    }

    /// This node decides: webhooks (single node), `subscription_succeeded`, `member_added` and the count.
    private func joinedLocally(
        _ admitted: SubscriptionAdmission.Admitted, connection id: ConnectionID,
        record: ChannelRecord, wasOccupied: Bool, isNewMember: Bool
    ) {
        let channel = admitted.channel
        let decides = !backplane.isClustered
        if decides, !wasOccupied, !admitted.isUserChannel {
            webhooks?.enqueue(.channelOccupied(channel: channel))
            consoleChannel(.occupied, channel: channel)
        }
        if decides, let member = admitted.member, isNewMember {
            webhooks?.enqueue(.memberAdded(channel: channel, userID: member.userID))
            consolePresence(
                "member_added", channel: channel, userID: member.userID, info: member.info,
                socketID: connections[id]?.socketID)
        }
        let presence: JSONValue? = admitted.member == nil ? Optional.none : record.presenceJSON
        send(ServerFrame.subscriptionSucceeded(channel: channel, presence: presence), to: id)
        if let member = admitted.member, isNewMember {
            let frame = ServerFrame.memberAdded(channel: channel, userID: member.userID, info: member.info)
            for (other, outbox) in record.subscribers where other != id {
                deliver(frame, via: outbox, to: other)
            }
        }
        if admitted.kind != .presence, !admitted.isUserChannel { announceSubscriptionCount(channel) }
    }

    /// A cache channel's last event for a new subscriber, or `pusher:cache_miss` (and its webhook).
    private func replayCache(_ channel: String, to id: ConnectionID) {
        guard ChannelNames.isCache(channel) else { return }
        if let cached = cache[channel], ContinuousClock.now - cached.at < Self.cacheTTL {
            send(ServerFrame.event(cached.name, channel: channel, data: cached.data), to: id)
        } else {
            send(ServerFrame.cacheMiss(channel: channel), to: id)
            webhooks?.enqueue(.cacheMiss(channel: channel))
        }
    }

    /// Removes a connection from a channel: announces a member's departure when it was their last connection,
    /// updates the subscription count, and forgets an empty channel.
    func leave(channel: String, connection id: ConnectionID) {
        connections[id]?.channels.remove(channel)
        let userID = connections[id]?.presenceUserIDs.removeValue(forKey: channel)
        guard var record = channels[channel] else { return }
        consoleSubscription(.unsubscribed, socketID: connections[id]?.socketID, channel: channel, userID: userID)
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
        if decides, let departed {
            webhooks?.enqueue(.memberRemoved(channel: channel, userID: departed))
            consolePresence("member_removed", channel: channel, userID: departed, socketID: connections[id]?.socketID)
        }
        if record.subscribers.isEmpty {
            channels[channel] = nil
            if decides, !isUserChannel {
                webhooks?.enqueue(.channelVacated(channel: channel))
                consoleChannel(.vacated, channel: channel)
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
        if !clusterShared, let record = channels[channel], let webhooks, webhooks.wantsSubscriptionCounts {
            webhooks.enqueue(.subscriptionCount(channel: channel, count: record.subscribers.count))
        }
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

    /// The rule a refused subscription broke, for the debug feed.
    static func subscriptionRule(_ refusal: SubscriptionAdmission.Refusal) -> String {
        switch refusal.type {
        case "LimitReached": return "max_presence_members"
        case "InvalidChannel": return "channel_name"
        case "PresenceError": return "presence_channel_data"
        case "AuthError" where refusal.message.contains("needs an auth signature"): return "auth_missing"
        case "AuthError" where refusal.status == 403: return "server_to_user_channel"
        case "AuthError": return "auth_signature"
        default: return refusal.type
        }
    }
}
