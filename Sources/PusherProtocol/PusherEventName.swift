/// Names of the protocol's own events.
public enum PusherEventName {
    public static let connectionEstablished = "pusher:connection_established"
    public static let error = "pusher:error"
    public static let ping = "pusher:ping"
    public static let pong = "pusher:pong"
    public static let subscribe = "pusher:subscribe"
    public static let unsubscribe = "pusher:unsubscribe"
    public static let subscriptionError = "pusher:subscription_error"
    public static let cacheMiss = "pusher:cache_miss"
    public static let signin = "pusher:signin"
    public static let signinSuccess = "pusher:signin_success"
    public static let watchlistEvents = "pusher_internal:watchlist_events"
    public static let subscriptionSucceeded = "pusher_internal:subscription_succeeded"
    public static let memberAdded = "pusher_internal:member_added"
    public static let memberRemoved = "pusher_internal:member_removed"
    public static let subscriptionCount = "pusher_internal:subscription_count"
    /// Prefix of the channel that carries a signed-in user's events (`#server-to-user-{id}`).
    public static let serverToUserPrefix = "#server-to-user-"
    /// Prefix of events that clients may send to each other.
    public static let clientPrefix = "client-"
}
