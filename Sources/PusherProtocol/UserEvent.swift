/// An event sent to one user (`send_to_user` in the server SDKs): it arrives on the user's
/// `#server-to-user-{id}` channel, which pusher-js hides behind `pusher.user`.
public struct UserEvent: Sendable, Hashable {
    /// The signed-in user it was sent to.
    public var userID: String
    /// The event name.
    public var name: String
    /// The data as text, exactly as sent, or `nil` without data.
    public var dataText: String?
    /// Seconds since 1970 when the frame was received.
    public var receivedAt: Double

    /// An event with the given fields; `receivedAt` is seconds since 1970.
    public init(userID: String, name: String, dataText: String?, receivedAt: Double = 0) {
        self.userID = userID
        self.name = name
        self.dataText = dataText
        self.receivedAt = receivedAt
    }

    /// The data as JSON when the text holds JSON, else the text as a JSON string; `nil` without data.
    public var data: JSONValue? { dataText.map(JSONValue.parsedOrString) }
}
