import PusherProtocol

extension DashboardState {
    /// Applies one client event.
    mutating func apply(_ event: ClientEvent) {
        switch event {
        case .state(let change): applyState(change)
        case .connectingIn(let delay): applyConnectingIn(delay)
        case .closed(let closure): applyClosed(closure)
        case .subscribing(let channel): upsertChannel(channel, status: .subscribing)
        case .subscribed(let channel, let presence): applySubscribed(channel, presence: presence)
        case .subscriptionError(let channel, let status, let message):
            applySubscriptionError(channel, status: status, message: message)
        case .unsubscribed(let channel): removeChannel(channel)
        case .event(let e): applyChannelEvent(e)
        case .memberAdded(let channel, let member): applyMemberAdded(channel, member: member)
        case .memberRemoved(let channel, let member): applyMemberRemoved(channel, member: member)
        case .subscriptionCount(let channel, let count):
            if let i = channelIndex(channel) { channels[i].subscriptionCount = count }
        case .error(let code, let message): applyError(code: code, message: message)
        case .decryptionError(let channel, let event, let message):
            log.append(
                app: selectedApp, time: now, kind: .error, channel: channel, event: "decryption error",
                dataText: "\(event): \(message)")
        case .pong(let roundTrip): self.connection.roundTrip = roundTrip
        case .signedIn(let user): applySignedIn(user)
        case .signInFailed(let status, let message): applySignInFailed(status: status, message: message)
        case .signedOut(let userID): applySignedOut(userID)
        case .userEvent(let e): applyUserEvent(e)
        case .watchlist(let change): applyWatchlist(change)
        case .authorization(let trace):
            self.auth.record(trace)
            if view == .authInspector { needsDraw = true }
        }
    }

    // The helpers below read `now` once, first: the accessors they use modify `self` (the selected app's slice).

    private mutating func applyConnectingIn(_ delay: Double) {
        let now = self.now
        self.connection.nextAttemptAt = now + delay
        log.append(
            app: selectedApp, time: now, kind: .info, channel: "", event: "retry",
            dataText: "next attempt in \(Format.seconds(delay))")
    }

    private mutating func applyClosed(_ closure: ConnectionClosure) {
        let now = self.now
        self.connection.lastClosure = closure
        let code = closure.code.map(String.init) ?? "no code"
        var text = "\(code) \(closure.meaning) → \(closure.action.rawValue)"
        if !closure.reason.isEmpty { text += " (\(closure.reason))" }
        log.append(app: selectedApp, time: now, kind: .error, channel: "", event: "closed", dataText: text)
    }

    /// A subscription succeeded: a presence channel's roster starts from the snapshot.
    private mutating func applySubscribed(_ channel: String, presence: PresenceSnapshot?) {
        let now = self.now
        upsertChannel(channel, status: .subscribed)
        if ChannelKind(channelName: channel) == .presence || presence != nil {
            self.rosters[channel] = MemberRoster(snapshot: presence)
            self.presenceCheck.rosterReset(channel)
        }
        var text = "subscribed"
        if let presence { text += " (\(Format.counted(presence.members.count, "member")))" }
        log.append(app: selectedApp, time: now, kind: .state, channel: channel, event: "subscribed", dataText: text)
    }

    private mutating func applySubscriptionError(_ channel: String, status: Int?, message: String) {
        let now = self.now
        let reason = status.map { "HTTP \($0): \(message)" } ?? message
        upsertChannel(channel, status: .error(reason))
        let pointer = self.auth.traces[channel] != nil ? " (auth inspector: select the channel, press a)" : ""
        log.append(
            app: selectedApp, time: now, kind: .error, channel: channel, event: "subscription error",
            dataText: reason + pointer)
    }

    /// A channel event: counted on its channel and the connection, logged, and noted by the wire inspector.
    private mutating func applyChannelEvent(_ e: ChannelEvent) {
        let now = self.now
        // Counted in the second the client read it (the clock only moves once per tick).
        let at = e.receivedAt > 0 ? e.receivedAt : now
        if let i = channelIndex(e.channel) {
            channels[i].events += 1
            channels[i].rate.record(at: at)
        }
        self.connection.rate.record(at: at)
        self.connection.totalEvents += 1
        let kind: LogEntry.Kind = e.name == "pusher:error" ? .error : .event
        log.append(
            app: selectedApp, time: e.receivedAt > 0 ? e.receivedAt : now, kind: kind, channel: e.channel,
            event: e.name,
            dataText: e.dataText, userID: e.userID, rawFrame: e.rawFrame)
        if e.rawFrame != nil { self.wire.note(e) }
    }

    private mutating func applyMemberAdded(_ channel: String, member: PresenceMember) {
        let now = self.now
        self.rosters[channel, default: MemberRoster(snapshot: nil)].add(member, at: now)
        self.presenceCheck.memberChanged(channel, userID: member.userID)
        log.append(
            app: selectedApp, time: now, kind: .info, channel: channel, event: "member added",
            dataText: member.userInfo.map { "\(member.userID) \($0.jsonString)" } ?? member.userID)
    }

    private mutating func applyMemberRemoved(_ channel: String, member: PresenceMember) {
        let now = self.now
        self.rosters[channel]?.remove(userID: member.userID, at: now)
        self.presenceCheck.memberChanged(channel, userID: member.userID)
        log.append(
            app: selectedApp, time: now, kind: .info, channel: channel, event: "member removed",
            dataText: member.userID)
    }

    private mutating func applyError(code: Int?, message: String) {
        let text = code.map { "\($0): \(message)" } ?? message
        log.append(app: selectedApp, time: now, kind: .error, channel: "", event: "error", dataText: text)
    }

    private mutating func applySignedIn(_ user: SignedInUser) {
        let now = self.now
        self.connection.signedInUser = user.id
        self.connection.signInRequested = true
        self.connection.signInError = nil
        self.watchlist = Watchlist(watched: user.watchlist)
        log.append(app: selectedApp, time: now, kind: .state, channel: "", event: "signed in", dataText: user.userData)
    }

    private mutating func applySignInFailed(status: Int?, message: String) {
        let now = self.now
        let reason = status.map { "HTTP \($0): \(message)" } ?? message
        self.connection.signInError = reason
        log.append(app: selectedApp, time: now, kind: .error, channel: "", event: "sign-in error", dataText: reason)
    }

    private mutating func applySignedOut(_ userID: String) {
        let now = self.now
        self.connection.signedInUser = nil
        self.watchlist = Watchlist()
        log.append(app: selectedApp, time: now, kind: .state, channel: "", event: "signed out", dataText: userID)
    }

    /// An event sent to the signed-in user: counted on the connection, logged under the user id.
    private mutating func applyUserEvent(_ e: UserEvent) {
        let now = self.now
        self.connection.rate.record(at: now)
        self.connection.totalEvents += 1
        log.append(
            app: selectedApp, time: e.receivedAt > 0 ? e.receivedAt : now, kind: .user, channel: e.userID,
            event: e.name,
            dataText: e.dataText)
    }

    private mutating func applyWatchlist(_ change: WatchlistChange) {
        let now = self.now
        self.watchlist.apply(change)
        log.append(
            app: selectedApp, time: now, kind: .info, channel: "", event: "watchlist \(change.status.rawValue)",
            dataText: change.userIDs.joined(separator: " "))
    }

    private mutating func applyState(_ change: StateChange) {
        let now = self.now
        let previous = self.connection.state
        self.connection.state = change.current
        switch change.current {
        case .connected:
            self.connection.socketID = change.socketID ?? self.connection.socketID
            if let id = change.socketID { self.auth.noteSocketID(id) }
            self.connection.connectedSince = now
            self.connection.nextAttemptAt = nil
            self.connection.wasConnected = true
        case .connecting:
            if self.connection.wasConnected, previous != .disconnected, previous != .initialized {
                self.connection.reconnects += 1
            }
            self.connection.connectedSince = nil
        case .disconnected, .failed, .unavailable, .initialized:
            self.connection.connectedSince = nil
            if change.current != .unavailable { self.connection.nextAttemptAt = nil }
        }
        if previous == .connected, change.current != .connected {
            // The client subscribes again after reconnecting; rosters are rebuilt from scratch.
            for i in channels.indices where channels[i].app == selectedApp {
                if channels[i].status == .subscribed { channels[i].status = .subscribing }
                channels[i].subscriptionCount = nil  // the old connection's count: unknown until the server says again
            }
            self.rosters.removeAll()
            self.presenceCheck.rostersReset()
            self.connection.socketID = nil
        }
        var text = "\(change.previous) → \(change.current)"
        if let id = change.socketID { text += " (socket \(id))" }
        log.append(app: selectedApp, time: now, kind: .state, channel: "", event: "state", dataText: text)
    }

    /// The index of the selected app's channel of this name.
    func channelIndex(_ name: String) -> Int? {
        channels.firstIndex { $0.name == name && $0.app == selectedApp }
    }

    /// Sets a channel's status, or adds it at the end of its app's group. Returns its index.
    @discardableResult
    mutating func upsertChannel(_ name: String, status: ChannelInfo.Status) -> Int {
        if let i = channelIndex(name) {
            channels[i].status = status
            return i
        }
        var channel = ChannelInfo(name: name, status: status)
        channel.app = selectedApp
        let at = (channels.lastIndex { $0.app <= selectedApp }).map { $0 + 1 } ?? 0
        channels.insert(channel, at: at)
        if channels.count > 1, at <= selectedChannel { selectedChannel += 1 }
        return at
    }

    mutating func removeChannel(_ name: String) {
        guard let i = channelIndex(name) else { return }
        channels.remove(at: i)
        self.rosters[name] = nil
        self.presenceCheck.rosterReset(name)
        if selectedChannel > i || selectedChannel >= channels.count { selectedChannel = max(0, selectedChannel - 1) }
    }

    /// Selects the app of the selected channel (after the channel selection moved).
    mutating func followChannelSelection() {
        if channels.indices.contains(selectedChannel) { selectedApp = channels[selectedChannel].app }
    }

    /// Selects the next app (`A`); the channel selection moves to its first channel.
    mutating func selectNextApp() {
        guard isMultiApp else {
            setStatus("one app is open (open several with --profile A --profile B, or open = [...] in the config file)")
            return
        }
        selectedApp = (selectedApp + 1) % apps.count
        if let i = channels.firstIndex(where: { $0.app == selectedApp }) { selectedChannel = i }
        memberTop = 0
        setStatus("app: \(appLabel) (keys act on it)")
    }
}
