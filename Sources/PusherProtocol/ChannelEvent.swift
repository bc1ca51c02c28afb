/// An event received on a channel.
public struct ChannelEvent: Sendable, Hashable {
    /// The channel the event arrived on.
    public var channel: String
    /// The event name, e.g. `price-update` or `client-typing`.
    public var name: String
    /// The data as text, exactly as sent (a JSON document or a plain string), or `nil` when there was none.
    public var dataText: String?
    /// The sender's user id, present on client events in presence channels.
    public var userID: String?
    /// Seconds since 1970 when the frame was received.
    public var receivedAt: Double
    /// The exact text of the WebSocket frame the event came in, when the client was asked to keep it (the frame tap
    /// is on); `nil` otherwise, so the hot path does not pay for it.
    public var rawFrame: String?

    /// An event with the given fields; `receivedAt` is seconds since 1970.
    public init(
        channel: String, name: String, dataText: String?, userID: String? = nil, receivedAt: Double = 0,
        rawFrame: String? = nil
    ) {
        self.channel = channel
        self.name = name
        self.dataText = dataText
        self.userID = userID
        self.receivedAt = receivedAt
        self.rawFrame = rawFrame
    }

    /// The data as JSON when the text holds JSON, else the text itself as a JSON string; `nil` without data.
    public var data: JSONValue? { dataText.map(JSONValue.parsedOrString) }
}
