/// A closed connection: the code the server sent (if any), its meaning, and what the client does next.
public struct ConnectionClosure: Sendable, Hashable {
    /// The WebSocket close code, or `nil` when the transport failed without a close frame.
    public var code: Int?
    /// The close frame's reason, or what went wrong with the transport.
    public var reason: String
    /// What the client does next because of this closure.
    public var action: CloseAction

    /// A closure with its code, reason and the action taken.
    public init(code: Int?, reason: String, action: CloseAction) {
        self.code = code
        self.reason = reason
        self.action = action
    }

    /// The code's meaning from Pusher's table.
    public var meaning: String { CloseCode.meaning(of: code) }
}
