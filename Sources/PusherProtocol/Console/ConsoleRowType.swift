/// The kind of a debug-console row: Pusher's Debug Console log types, plus the rows pushtop adds for what it
/// observes itself (a listener's gap, a webhook that does not verify or that deviates from Pusher's format).
///
/// The raw values are the `type` of a `pushtop console` JSON line; scripts rely on them, so they never change.
public enum ConsoleRowType: String, Sendable, Hashable, CaseIterable {
    case connection
    case disconnection
    case subscribed
    case unsubscribed
    case occupied
    case vacated
    case apiMessage = "api_message"
    case clientEvent = "client_event"
    case presenceEvent = "presence_event"
    /// A refusal the server sent a connection (`pusher:error`, `pusher:subscription_error`).
    case error
    /// An HTTP API request the server refused (401, 403, 413, 429…).
    case apiError = "api_error"
    /// A client event the server refused.
    case clientError = "client_error"
    case webhookSent = "webhook_sent"
    case webhookFailed = "webhook_failed"
    /// A `subscription_count` webhook event (received from a server).
    case subscriptionCount = "subscription_count"
    /// Rows a slow listener missed: `dropped` says how many.
    case gap
    /// A received webhook whose `X-Pusher-Signature` (or key) does not verify.
    case webhookRejected = "webhook_rejected"
    /// A received webhook that deviates from Pusher's documented format or timing; `problem` names it.
    case webhookProblem = "webhook_problem"
    /// A fault `pushtop proxy` injected (`fault` names its rule): a close, a refusal, a dropped or late event.
    case fault
    /// What a client did after a fault: reconnected, resubscribed (with the times), or not.
    case recovered
    /// A client case's verdict (`pushtop conform --client`): `rule` names the case, `verdict` the result
    /// (`pass`, `fail`, `not_observed`), `reason` what was seen.
    case verdict
}

/// Where a console row came from.
public enum ConsoleRowSource: String, Sendable, Hashable {
    /// A `pushtop serve` debug feed (`GET /apps/{id}/console`).
    case server
    /// A webhook request pushtop received.
    case webhook
}

/// Who ended a connection (a `disconnection` row).
public enum ConsoleClosedBy: String, Sendable, Hashable {
    case client
    case server
    case timeout
    case slowConsumer = "slow_consumer"
    case nodeShutdown = "node_shutdown"
}
