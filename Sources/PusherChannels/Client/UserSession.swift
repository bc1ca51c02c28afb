import PusherProtocol

/// The client's sign-in: whether one was asked for, how far it got on the current connection, and who in
/// the signed-in user's watchlist is online.
struct UserSession {
    enum Phase: Equatable {
        /// Not signing in on this connection.
        case idle
        /// Waiting for the user authenticator (request `generation`).
        case authenticating(generation: Int)
        /// `pusher:signin` sent; waiting for `pusher:signin_success`.
        case awaitingServer
        /// Signed in on this connection.
        case signedIn(SignedInUser)
    }

    /// ``PusherClient/signIn()`` was called and ``PusherClient/signOut()`` was not: sign in on every connection.
    var requested = false
    var phase = Phase.idle
    var generation = 0
    /// Channel subscriptions wait for the sign-in that a new connection starts with.
    var holdsChannels = false
    /// Watched users currently online.
    var online: Set<String> = []

    var user: SignedInUser? {
        if case .signedIn(let user) = phase { return user }
        return nil
    }

    /// The channel that carries events sent to the signed-in user.
    var serverToUserChannel: String? {
        user.map { PusherEventName.serverToUserPrefix + $0.id }
    }

    /// Applies a watchlist change to the set of online users.
    mutating func apply(_ change: WatchlistChange) {
        switch change.status {
        case .online: online.formUnion(change.userIDs)
        case .offline: online.subtract(change.userIDs)
        }
    }

    /// Forgets the connection's sign-in (the request stays); returns the user that was signed in.
    mutating func connectionEnded() -> SignedInUser? {
        let user = self.user
        phase = .idle
        holdsChannels = false
        online = []
        return user
    }
}
