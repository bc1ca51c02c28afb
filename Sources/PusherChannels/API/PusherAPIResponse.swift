import PusherProtocol

/// A successful HTTP API answer: its status and body.
public struct PusherAPIResponse: Sendable, Hashable {
    /// The HTTP status (2xx: the server accepted the request).
    public var status: Int
    /// The body as text (JSON for every Pusher endpoint).
    public var body: String

    /// A response with its status and body.
    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }

    /// The body parsed as JSON, or `nil` when it is not JSON.
    public var json: JSONValue? { JSONValue.parseIfJSON(body) }
}

/// One event of a `batch_events` request.
public struct PusherBatchEvent: Sendable, Hashable {
    /// The channel to publish on.
    public var channel: String
    /// The event name.
    public var name: String
    /// The event's data, sent as is (usually a JSON document).
    public var data: String
    /// A connection not to send the event to (the one that caused it).
    public var socketID: String?
    /// Attributes to report back (`subscription_count`, `user_count`).
    public var info: [String]

    /// One event of a batch (`POST /apps/{id}/batch_events`).
    public init(channel: String, name: String, data: String, socketID: String? = nil, info: [String] = []) {
        self.channel = channel
        self.name = name
        self.data = data
        self.socketID = socketID
        self.info = info
    }
}
