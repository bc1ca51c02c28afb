/// One row of the debug console: something a Pusher-compatible server did for an app, as `pushtop serve`'s debug
/// feed reports it or as a received webhook shows it.
///
/// Every field but ``type`` and ``timeMs`` is optional; a row carries what its type knows. The JSON form
/// (``jsonLine``) is the line `pushtop console` prints and the object the feed sends, with keys in a fixed order
/// (`type`, `time`, `time_ms`, `node`, `app_id`, `source`, `socket_id`, `channel`, `event`, then the rest).
public struct ConsoleRow: Sendable, Hashable {
    public var type: ConsoleRowType
    /// Milliseconds since 1970 (UTC), when the server did it (or when pushtop received it).
    public var timeMs: Int64
    /// The node that did it (`serve --node-id`), when known.
    public var node: String?
    public var appID: String?
    public var source: ConsoleRowSource?
    public var socketID: String?
    public var channel: String?
    /// An event name: the API message's or client event's event, `member_added`/`member_removed` on a presence
    /// event, the webhook event's name on webhook rows.
    public var event: String?
    public var userID: String?
    /// Presence `user_info`.
    public var userInfo: JSONValue?
    /// Channels of an API message (`channel` holds the first), channels a disconnected socket was in.
    public var channels: [String]?
    /// Event data as sent, cut at the feed's bound (``dataTruncated`` then says so).
    public var data: String?
    /// The data's whole size in bytes (UTF-8).
    public var dataBytes: Int?
    public var dataTruncated: Bool?
    /// The `socket_id` an API message excluded.
    public var excludedSocketID: String?
    /// Whether an API message came in a `batch_events` request.
    public var batch: Bool?
    /// The remote address (a connection's peer, an API caller, a webhook sender).
    public var remoteAddress: String?
    /// A connection's `Origin` header.
    public var origin: String?
    /// A connection's `protocol` query.
    public var protocolVersion: Int?
    /// A connection's client library and version (the URL's `client` and `version` queries).
    public var clientLibrary: String?
    public var clientVersion: String?
    public var tls: Bool?
    /// A close code (disconnection) or a Pusher error code (error, client_error).
    public var code: Int?
    /// A close reason, or the refusal's text.
    public var reason: String?
    public var closedBy: ConsoleClosedBy?
    /// How long a connection lived, in milliseconds.
    public var lifetimeMs: Int64?
    /// The rule or limit behind a refusal (`max_presence_members`, `timestamp`, `signature`, `client_events`…).
    public var rule: String?
    /// An HTTP status: an API error's answer, a webhook endpoint's answer.
    public var status: Int?
    /// A webhook URL; the request path of an API error.
    public var url: String?
    /// A webhook delivery attempt, from 1.
    public var attempt: Int?
    /// The webhook events of a batch (their names), or the events of a rejected webhook.
    public var events: [String]?
    /// Rows a slow listener missed (a `gap`).
    public var dropped: Int?
    /// A presence channel's or `subscription_count` webhook's count.
    public var subscriptionCount: Int?
    /// A signature check that failed: what the secret gives and what arrived.
    public var expectedSignature: String?
    public var receivedSignature: String?
    /// The likely cause of a rejected webhook, or a deviation's explanation.
    public var cause: String?
    /// A deviation's name (`unwrapped_events`, `duplicate_event`, `vacated_while_subscribed`, `no_grace`…).
    public var problem: String?
    /// The sockets a client event reached (`pushtop proxy` sees each delivery).
    public var deliveredTo: [String]?
    /// The fault rule behind a `fault` or `recovered` row (`pushtop proxy --fault`'s syntax).
    public var fault: String?
    /// On a `recovered` row: the socket the fault hit (the new one is ``socketID``).
    public var previousSocketID: String?
    /// On a `recovered` row: milliseconds from the fault to the new connection, and to its last resubscription.
    public var reconnectMs: Int64?
    public var resubscribeMs: Int64?
    /// On a `verdict` row: `pass`, `fail` or `not_observed`.
    public var verdict: String?

    public init(type: ConsoleRowType, timeMs: Int64) {
        self.type = type
        self.timeMs = timeMs
    }
}
