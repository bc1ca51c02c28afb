/// Everything a Pusher client reports: state changes, subscriptions, events, presence and errors.
///
/// The client publishes these through `AsyncStream`s; the dashboard, `watch` and other programs consume
/// them. Values only: nothing here refers back to the client.
public enum ClientEvent: Sendable, Hashable {
    /// The connection state changed.
    case state(StateChange)
    /// The next connection attempt starts in `delay` seconds.
    case connectingIn(delay: Double)
    /// The connection was closed by the server or lost; what happens next is in the closure's action.
    case closed(ConnectionClosure)
    /// The client started subscribing (private, presence and encrypted channels: authorization first).
    case subscribing(channel: String)
    /// The server confirmed a subscription; presence channels carry their roster.
    case subscribed(channel: String, presence: PresenceSnapshot?)
    /// Authorization or subscription failed. `status` is the HTTP status of the auth endpoint when there was one.
    case subscriptionError(channel: String, status: Int?, message: String)
    /// The client left a channel.
    case unsubscribed(channel: String)
    /// An event arrived on a channel (including `pusher:cache_miss`).
    case event(ChannelEvent)
    /// A member joined a presence channel.
    case memberAdded(channel: String, member: PresenceMember)
    /// A member left a presence channel.
    case memberRemoved(channel: String, member: PresenceMember)
    /// The server's count of subscribers on a channel.
    case subscriptionCount(channel: String, count: Int)
    /// `pusher:error` from the server (with its code), or a local error (code `nil`).
    case error(code: Int?, message: String)
    /// An event on an encrypted channel could not be decrypted, even after fetching a fresh key.
    case decryptionError(channel: String, event: String, message: String)
    /// A reply to the client's `pusher:ping`, with the round-trip time in seconds.
    case pong(roundTrip: Double)
    /// The server confirmed the sign-in (`pusher:signin_success`) with this user.
    case signedIn(SignedInUser)
    /// Signing in failed: the user-authentication endpoint refused (its HTTP `status`), gave bad user data, or
    /// the server refused the signature. The connection's channels are not affected.
    case signInFailed(status: Int?, message: String)
    /// The client stopped being signed in as `userID` (`signOut()` was called, or the connection was lost and
    /// the client signs in again when it is back).
    case signedOut(userID: String)
    /// An event the server sent to the signed-in user (`#server-to-user-{id}`), not to a channel.
    case userEvent(UserEvent)
    /// Users in the signed-in user's watchlist came online or went offline.
    case watchlist(WatchlistChange)
    /// What an authorization of a private, presence or encrypted channel did (endpoint, status, timing,
    /// response excerpt, signature): for inspectors; published before the subscription's outcome.
    case authorization(AuthorizationTrace)
}
