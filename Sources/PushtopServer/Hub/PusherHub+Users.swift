import PusherProtocol

extension PusherHub {
    /// Handles `pusher:signin`: verifies `auth` (HMAC-SHA256 of `socket_id::user::user_data`) and `user_data`
    /// (a JSON object with a string `id`), answers `pusher:signin_success`, and tells the watchers of a user that
    /// came online. A refused sign-in gets `pusher:error` 4009 and the connection is closed with 4009, as Pusher
    /// does.
    func signIn(_ message: PusherMessage, connection id: ConnectionID) {
        guard let record = connections[id] else { return }
        let refuse = { (why: String) in
            self.logger.info("refused a sign-in", metadata: ["connection": "\(id)", "reason": "\(why)"])
            self.consoleError(id, code: 4009, reason: "Connection not authorized: \(why)", rule: "user_authentication")
            self.send(ServerFrame.error(code: 4009, message: "Connection not authorized: \(why)"), to: id)
            self.close(id, code: 4009, reason: "Connection not authorized")
        }
        guard let data = message.dataJSON?.objectValue else {
            return refuse("pusher:signin needs data with auth and user_data")
        }
        guard let auth = data["auth"]?.stringValue, !auth.isEmpty else { return refuse("pusher:signin has no auth") }
        guard let userData = data["user_data"]?.stringValue else {
            return refuse("pusher:signin has no user_data string")
        }
        let parts = auth.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return refuse("auth should be of format 'key:signature'") }
        guard String(parts[0]) == app.key else { return refuse("invalid key '\(parts[0])' in auth") }
        guard
            UserAuthSignature.verify(
                auth: auth, key: app.key, secret: app.secret, socketID: record.socketID, userData: userData)
        else {
            let signed = UserAuthSignature.stringToSign(socketID: record.socketID, userData: userData)
            return refuse("invalid signature: expected HMAC SHA256 hex digest of \(signed), but got \(parts[1])")
        }
        let user: SignedInUser
        do {
            user = try SignedInUser(userData: userData)
        } catch {
            return refuse(error.description)
        }
        if let problem = UserIDs.problem(user.id) { return refuse(problem) }
        if let current = users.userOf[id] {
            consoleError(
                id, code: nil, reason: "Connection is already signed in as \(current)", rule: "already_signed_in")
            send(ServerFrame.error(code: nil, message: "Connection is already signed in as \(current)"), to: id)
            return
        }
        let cameOnline = users.signIn(id, as: user.id, watching: user.watchlist)
        send(
            ServerFrame.event(
                PusherEventName.signinSuccess, channel: nil,
                data: JSONValue.object(["user_data": .string(userData)]).jsonString), to: id)
        logger.debug("signed in", metadata: ["connection": "\(id)", "user_id": "\(user.id)"])
        if clusterShared {
            // The cluster says who is online (``clusterSignedIn``) and tells every node's watchers.
            backplane.send(.signedIn(userID: user.id, socketID: record.socketID, watchlist: user.watchlist))
            return
        }
        let online = user.watchlist.filter { users.isOnline($0) }
        if !online.isEmpty {
            send(Self.watchlistFrame([WatchlistChange(status: .online, userIDs: online)]), to: id)
        }
        if cameOnline { notifyWatchers(of: user.id, status: .online, except: id) }
    }

    /// Forgets the sign-in of a connection that is going away; its user's watchers hear it went offline when
    /// it was the user's last connection.
    func signOut(_ id: ConnectionID) {
        if clusterShared, let userID = users.userOf[id], let socketID = connections[id]?.socketID {
            backplane.send(.signedOut(userID: userID, socketID: socketID))
            _ = users.remove(id)
            return
        }
        guard let wentOffline = users.remove(id) else { return }
        notifyWatchers(of: wentOffline, status: .offline, except: id)
    }

    /// Closes every connection signed in as `userID` (`POST /users/{id}/terminate_connections`): each gets
    /// `pusher:error` 4009 and a close with 4009, so clients do not reconnect on their own. Returns how many.
    /// In a cluster every node closes its own connections of the user; the count is this node's.
    @discardableResult
    public func terminateConnections(ofUser userID: String) -> Int {
        let count = terminateLocally(userID)
        if backplane.isClustered { backplane.send(.terminate(userID: userID)) }
        endTurn()
        return count
    }

    /// The users signed in now, sorted (for tests and diagnostics).
    public func signedInUsers() -> [String] {
        users.connectionsOf.keys.sorted()
    }

    private func notifyWatchers(of userID: String, status: WatchlistChange.Status, except: ConnectionID) {
        guard let watching = users.watchers[userID], !watching.isEmpty else { return }
        let frame = Self.watchlistFrame([WatchlistChange(status: status, userIDs: [userID])])
        for watcher in watching where watcher != except { send(frame, to: watcher) }
    }

    static func watchlistFrame(_ changes: [WatchlistChange]) -> OutboundFrame {
        ServerFrame.event(
            PusherEventName.watchlistEvents, channel: nil,
            data: WatchlistChange.watchlistData(changes).jsonString)
    }
}
