import PusherProtocol

/// What the cluster answers to a presence subscription.
public enum ClusterJoinAnswer: Sendable {
    /// Registered: the cluster's roster (this member included).
    case joined(roster: [ClusterMember])
    /// The channel already has ``PusherLimits/maxPresenceMembers`` members across the cluster.
    case full
    /// Redis could not be asked: the node answers from its own members.
    case unavailable
}

extension PusherHub {
    // MARK: Messages from other nodes

    /// Delivers what the cluster's pub/sub channel carried to this node's sockets, in the order it came.
    public func clusterReceive(_ messages: [ClusterMessage]) {
        for message in messages {
            switch message {
            case .event(let origin, let channels, let name, let data, let excluded, let userID):
                // The node that took an event delivered it to its own sockets already.
                guard origin != backplane.nodeID else { continue }
                deliver(
                    PublishRequest(channels: channels, name: name, data: data, excludedSocketID: excluded),
                    userID: userID)
            case .memberAdded(let channel, let userID, let infoJSON):
                guard let record = channels[channel] else { continue }
                channels[channel]?.toldMemberIDs.insert(userID)
                let info = infoJSON.isEmpty ? nil : JSONValue.parseIfJSON(infoJSON)
                let frame = ServerFrame.memberAdded(channel: channel, userID: userID, info: info)
                let own = record.members[userID]?.connections ?? []
                for (id, outbox) in record.subscribers where !own.contains(id) { deliver(frame, via: outbox, to: id) }
            case .memberRemoved(let channel, let userID):
                guard let record = channels[channel] else { continue }
                channels[channel]?.toldMemberIDs.remove(userID)
                let frame = ServerFrame.memberRemoved(channel: channel, userID: userID)
                for (id, outbox) in record.subscribers { deliver(frame, via: outbox, to: id) }
            case .subscriptionCount(let channel, let count):
                guard subscriptionCountEvents, let record = channels[channel], !record.subscribers.isEmpty else {
                    continue
                }
                if record.subscribers.count > Self.busyChannelSubscribers {
                    clusterCounts[channel] = count
                    pendingSubscriptionCounts.insert(channel)
                    continue
                }
                let frame = ServerFrame.subscriptionCount(channel: channel, count: count)
                for (id, outbox) in record.subscribers { deliver(frame, via: outbox, to: id) }
            case .terminate(let userID):
                terminateLocally(userID)
            case .userStatus(let userID, let online):
                guard let watching = users.watchers[userID], !watching.isEmpty else { continue }
                let frame = Self.watchlistFrame([
                    WatchlistChange(status: online ? .online : .offline, userIDs: [userID])
                ])
                for watcher in watching where users.userOf[watcher] != userID { send(frame, to: watcher) }
            }
        }
        endTurn()
    }

    // MARK: Answers

    /// Finishes a presence subscription with the cluster's answer: `subscription_succeeded` with the cluster's
    /// roster, or `LimitReached` when the cluster's channel is full.
    public func clusterJoined(channel: String, socketID: String, answer: ClusterJoinAnswer) {
        defer { endTurn() }
        guard let id = connectionsBySocketID[socketID], let userID = connections[id]?.presenceUserIDs[channel],
            let record = channels[channel]
        else { return }
        switch answer {
        case .joined(let roster):
            var hash: [String: JSONValue] = [:]
            var ids: [JSONValue] = []
            for member in roster where hash[member.userID] == nil {
                hash[member.userID] = member.info ?? .null
                ids.append(.string(member.userID))
            }
            channels[channel]?.toldMemberIDs.formUnion(hash.keys)
            let presence: JSONValue = ["ids": .array(ids), "hash": .object(hash), "count": .number(Double(ids.count))]
            send(ServerFrame.subscriptionSucceeded(channel: channel, presence: presence), to: id)
        case .full:
            withdraw(channel: channel, connection: id)
            let why = "Presence channel \(channel) is full: the limit is \(limits.maxPresenceMembers) members"
            consoleError(id, code: nil, reason: why, rule: "max_presence_members", channel: channel, status: 403)
            send(ServerFrame.error(code: nil, message: why), to: id)
            send(
                ServerFrame.subscriptionError(
                    channel: ErrorText.excerpt(channel), type: "LimitReached", message: why,
                    status: 403), to: id)
        case .unavailable:
            // Redis is away: this node's own members, and it tells its own sockets.
            send(ServerFrame.subscriptionSucceeded(channel: channel, presence: record.presenceJSON), to: id)
            if let member = record.members[userID], member.connections == [id] {
                let frame = ServerFrame.memberAdded(channel: channel, userID: userID, info: member.info)
                for (other, outbox) in record.subscribers where other != id { deliver(frame, via: outbox, to: other) }
            }
        }
    }

    /// Removes a subscription the cluster refused, without telling anyone (nobody heard of it).
    private func withdraw(channel: String, connection id: ConnectionID) {
        connections[id]?.channels.remove(channel)
        guard let userID = connections[id]?.presenceUserIDs.removeValue(forKey: channel),
            var record = channels[channel]
        else { return }
        record.subscribers[id] = nil
        if var member = record.members[userID] {
            member.connections.remove(id)
            if member.connections.isEmpty {
                record.members[userID] = nil
                record.memberOrder.removeAll { $0 == userID }
            } else {
                record.members[userID] = member
            }
        }
        channels[channel] = record.subscribers.isEmpty ? nil : record
    }

    /// After Redis came back: tells this node's sockets on each presence channel who joined or left elsewhere
    /// while it was away (`rosters`: the cluster's members per channel, read after this node re-registered).
    /// With `removing` false only who joined is told: right after a Redis restart the other nodes may not have
    /// re-registered yet, and their members must not flap out and back in.
    public func clusterRosters(_ rosters: [String: [ClusterMember]], removing: Bool = true) {
        for (channel, roster) in rosters {
            guard var record = channels[channel] else { continue }
            let known = record.toldMemberIDs.union(record.members.keys)
            let now = Set(roster.map(\.userID))
            for member in roster where !known.contains(member.userID) {
                let frame = ServerFrame.memberAdded(channel: channel, userID: member.userID, info: member.info)
                for (id, outbox) in record.subscribers { deliver(frame, via: outbox, to: id) }
            }
            if removing {
                for userID in known.subtracting(now) where record.members[userID] == nil {
                    let frame = ServerFrame.memberRemoved(channel: channel, userID: userID)
                    for (id, outbox) in record.subscribers { deliver(frame, via: outbox, to: id) }
                }
                record.toldMemberIDs = now
            } else {
                record.toldMemberIDs.formUnion(now)
            }
            channels[channel] = record
        }
        endTurn()
    }

    /// Tells a connection that signed in which of the users it watches are online anywhere in the cluster.
    public func clusterSignedIn(socketID: String, online: [String]) {
        guard let id = connectionsBySocketID[socketID], !online.isEmpty else { return }
        send(Self.watchlistFrame([WatchlistChange(status: .online, userIDs: online)]), to: id)
        endTurn()
    }

    // MARK: The link

    /// Redis is reachable (again): presence and counts become the cluster's, and this node's whole state is
    /// re-registered (replacing what the cluster knew of it, which the survivors may have removed meanwhile).
    public func clusterConnected() {
        clusterShared = true
        backplane.send(.resync(snapshot()))
    }

    /// Redis went away: the node decides alone until it is back.
    public func clusterDisconnected() {
        clusterShared = false
    }

    /// Everything this node holds that the cluster counts.
    func snapshot() -> ClusterSnapshot {
        var snapshot = ClusterSnapshot()
        for (name, record) in channels where !name.hasPrefix(PusherEventName.serverToUserPrefix) {
            snapshot.subscriptions[name] = record.subscribers.count
            for (userID, member) in record.members {
                let shared = ClusterMember(userID: userID, info: member.info)
                for id in member.connections {
                    guard let socketID = connections[id]?.socketID else { continue }
                    snapshot.presence.append((name, socketID, shared))
                }
            }
        }
        for (id, userID) in users.userOf {
            guard let socketID = connections[id]?.socketID else { continue }
            snapshot.users.append((socketID, userID))
        }
        return snapshot
    }

    /// Closes this node's connections of a user (4009); returns how many.
    @discardableResult
    func terminateLocally(_ userID: String) -> Int {
        let ids = users.connectionsOf[userID] ?? []
        for id in ids {
            consoleError(id, code: 4009, reason: "Connection terminated by the app", rule: "terminate_connections")
            send(ServerFrame.error(code: 4009, message: "Connection terminated by the app"), to: id)
            close(id, code: 4009, reason: "Connection terminated by the app")
        }
        if !ids.isEmpty {
            logger.info("terminated connections", metadata: ["user_id": "\(userID)", "count": "\(ids.count)"])
        }
        return ids.count
    }
}
