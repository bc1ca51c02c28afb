/// The names of the deviations a `webhook_problem` row reports (its `problem`).
public enum WebhookProblem {
    /// The payload is not `{"time_ms":…,"events":[…]}` but a bare event or array (soketi #137).
    public static let unwrappedEvents = "unwrapped_events"
    /// No `events` array at all.
    public static let noEvents = "no_events"
    /// `time_ms` missing, not a number of milliseconds, or more than 5 minutes from now.
    public static let invalidTimeMs = "invalid_time_ms"
    /// An event lacks a field Pusher documents for it.
    public static let missingFields = "missing_fields"
    /// A field of the JSON type Pusher does not document: `client_event` `data` as an object, a numeric
    /// `user_id`, a `subscription_count` as a string (the row keeps what was sent).
    public static let wrongType = "wrong_type"
    /// An event name Pusher does not document.
    public static let unknownEvent = "unknown_event"
    /// The same event again within a second: several nodes each sent it (soketi PR #438).
    public static let duplicateEvent = "duplicate_event"
    /// `channel_vacated` while the HTTP API still lists subscribers (soketi #616).
    public static let vacatedWhileSubscribed = "vacated_while_subscribed"
    /// A departure undone within Pusher's 3-second grace: Pusher would have sent neither (soketi #830).
    public static let noGrace = "no_grace"
    /// The body is not JSON (answered 400).
    public static let notJSON = "not_json"
    /// The body is larger than the bound (answered 413).
    public static let bodyTooLarge = "body_too_large"
    /// Requests refused with 503 while too many were in progress (`dropped` counts them).
    public static let overloaded = "overloaded"
    /// A `--forward` target could not be reached.
    public static let forwardFailed = "forward_failed"
}
