/// A problem that makes every case meaningless, said once before any case runs (`pushtop conform` exits 2).
public enum PreflightError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A node does not accept connections.
    case unreachable(node: String, why: String)
    /// The server does not know the app key.
    case unknownKey(key: String, how: String)
    /// The server refuses the HTTP API's signature: a wrong secret or app id.
    case refusedSignature(node: String, answer: String)
    /// The webhook listener received nothing from the server.
    case noWebhooks(listener: String, waited: Double)

    public var description: String {
        switch self {
        case .unreachable(let node, let why):
            return "cannot reach \(node): \(why). Is the server running, and are --host/--port (or --node) right?"
        case .unknownKey(let key, let how):
            return "the server does not accept the app key '\(key)' (\(how)): check --key"
        case .refusedSignature(let node, let answer):
            return "the HTTP API at \(node) refused a signed request (\(answer)): check --app-id and --secret"
        case .noWebhooks(let listener, let waited):
            return
                "no webhook reached http://\(listener)/ within \(Int(waited)) s of occupying a channel: configure the "
                + "server to post its webhooks there (an address the server can reach), or leave --webhook-listen out "
                + "to skip the webhook cases"
        }
    }
}
