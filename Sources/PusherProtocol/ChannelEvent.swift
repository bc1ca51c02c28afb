/// An event received on a channel.
public struct ChannelEvent: Sendable, Hashable {
    public var channel: String
    /// The event name, e.g. `price-update` or `client-typing`.
    public var name: String
    /// The data as text, exactly as sent (a JSON document or a plain string), or `nil` when there was none.
    public var dataText: String?
    /// The sender's user id, present on client events in presence channels.
    public var userID: String?
    /// Seconds since 1970 when the frame was received.
    public var receivedAt: Double

    public init(channel: String, name: String, dataText: String?, userID: String? = nil, receivedAt: Double = 0) {
        self.channel = channel
        self.name = name
        self.dataText = dataText
        self.userID = userID
        self.receivedAt = receivedAt
    }

    /// The data as JSON when the text holds JSON, else the text itself as a JSON string; `nil` without data.
    public var data: JSONValue? {
        guard let dataText else { return nil }
        return JSONValue.parseIfJSON(dataText) ?? .string(dataText)
    }
}
