/// Who is signed in on which connection, and who watches whom: the hub's record of `pusher:signin`.
struct UserDirectory {
    /// The user each signed-in connection is signed in as.
    var userOf: [ConnectionID: String] = [:]
    /// The signed-in connections of each user.
    var connectionsOf: [String: Set<ConnectionID>] = [:]
    /// The watchlist each signed-in connection gave.
    var watchlistOf: [ConnectionID: [String]] = [:]
    /// For each watched user id, the connections watching it.
    var watchers: [String: Set<ConnectionID>] = [:]

    /// Whether the user has at least one signed-in connection.
    func isOnline(_ userID: String) -> Bool {
        !(connectionsOf[userID]?.isEmpty ?? true)
    }

    /// Records a sign-in; returns whether it brought the user online (their first connection).
    mutating func signIn(_ id: ConnectionID, as userID: String, watching watchlist: [String]) -> Bool {
        let cameOnline = !isOnline(userID)
        userOf[id] = userID
        connectionsOf[userID, default: []].insert(id)
        watchlistOf[id] = watchlist
        for watched in watchlist { watchers[watched, default: []].insert(id) }
        return cameOnline
    }

    /// Forgets a connection; returns its user when it was that user's last connection (the user went offline).
    mutating func remove(_ id: ConnectionID) -> String? {
        for watched in watchlistOf.removeValue(forKey: id) ?? [] {
            watchers[watched]?.remove(id)
            if watchers[watched]?.isEmpty == true { watchers[watched] = nil }
        }
        guard let userID = userOf.removeValue(forKey: id) else { return nil }
        connectionsOf[userID]?.remove(id)
        guard connectionsOf[userID]?.isEmpty ?? true else { return nil }
        connectionsOf[userID] = nil
        return userID
    }
}
