/// A fault the console asks a `pushtop proxy` to inject on one socket it relays: for now, closing that socket with a
/// close code (`K` on a row: 4200, "reconnect now"). Sent by the dashboard's ``ConsoleControl`` to the proxy's
/// signed control endpoint as a fault rule in its compact syntax.
public struct ConsoleFaultRequest: Sendable, Hashable {
    /// The Pusher socket id (the upstream's, which the client sees) of the connection to close.
    public var socketID: String
    /// The close code the client receives.
    public var code: Int
    /// The node of the row the key was pressed on (a proxy's feed names itself `proxy:UPSTREAM`): which source to ask.
    public var node: String?

    public init(socketID: String, code: Int, node: String? = nil) {
        self.socketID = socketID
        self.code = code
        self.node = node
    }

    /// The rule in `pushtop proxy`'s compact syntax: applied once, to this socket only.
    public var rule: String { "close:\(code),socket=\(socketID),times=1" }
}
