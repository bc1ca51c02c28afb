/// Names of the protocol's own events.
public enum PusherEventName {
    /// The server's first message: the socket id and the activity timeout.
    public static let connectionEstablished = "pusher:connection_established"
    /// An error from the server, with a code and a message.
    public static let error = "pusher:error"
    /// A keep-alive ping (either side sends it; the other answers with a pong).
    public static let ping = "pusher:ping"
    /// The answer to a ping.
    public static let pong = "pusher:pong"
    /// A client's request to subscribe to a channel (with `auth` and `channel_data` when needed).
    public static let subscribe = "pusher:subscribe"
    /// A client's request to leave a channel.
    public static let unsubscribe = "pusher:unsubscribe"
    /// The server refused a subscription.
    public static let subscriptionError = "pusher:subscription_error"
    /// A cache channel had no cached event when the client subscribed.
    public static let cacheMiss = "pusher:cache_miss"
    /// User authentication (`pusher:signin`).
    public static let signin = "pusher:signin"
    /// The server accepted a sign-in (with the signed `user_data`).
    public static let signinSuccess = "pusher:signin_success"
    /// Users of the signed-in user's watchlist came online or went offline.
    public static let watchlistEvents = "pusher_internal:watchlist_events"
    /// The server confirmed a subscription (with the roster on presence channels).
    public static let subscriptionSucceeded = "pusher_internal:subscription_succeeded"
    /// A member joined a presence channel.
    public static let memberAdded = "pusher_internal:member_added"
    /// A member left a presence channel.
    public static let memberRemoved = "pusher_internal:member_removed"
    /// The number of subscribers of a channel changed (when the app enables it).
    public static let subscriptionCount = "pusher_internal:subscription_count"
    /// Prefix of the channel that carries a signed-in user's events (`#server-to-user-{id}`).
    public static let serverToUserPrefix = "#server-to-user-"
    /// Prefix of events that clients may send to each other.
    public static let clientPrefix = "client-"
}
