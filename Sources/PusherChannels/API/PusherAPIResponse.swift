import PusherProtocol

/// A successful HTTP API answer: its status and body.
public struct PusherAPIResponse: Sendable, Hashable {
    public var status: Int
    /// The body as text (JSON for every Pusher endpoint).
    public var body: String

    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }

    /// The body parsed as JSON, or `nil` when it is not JSON.
    public var json: JSONValue? { JSONValue.parseIfJSON(body) }
}

/// One event of a `batch_events` request.
public struct PusherBatchEvent: Sendable, Hashable {
    public var channel: String
    public var name: String
    public var data: String
    public var socketID: String?
    /// Attributes to report back (`subscription_count`, `user_count`).
    public var info: [String]

    public init(channel: String, name: String, data: String, socketID: String? = nil, info: [String] = []) {
        self.channel = channel
        self.name = name
        self.data = data
        self.socketID = socketID
        self.info = info
    }
}
