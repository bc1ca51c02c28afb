import PusherProtocol

/// Errors of the client's own API calls (nothing was sent when one is thrown).
public enum ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidChannelName(ChannelName.ValidationError)
    case notClientEvent(event: String)
    case clientEventsNotAllowed(channel: String, kind: ChannelKind)
    case notSubscribed(channel: String)
    case notConnected
    case invalidOptions(String)
    /// ``PusherClient/signIn()`` needs ``PusherClientOptions/userAuthenticator``.
    case noUserAuthenticator

    public var description: String {
        switch self {
        case .invalidChannelName(let why):
            return why.description
        case .notClientEvent(let event):
            return "client events must start with \"client-\": \"\(event)\" does not"
        case .clientEventsNotAllowed(let channel, let kind):
            return "client events need a private or presence channel; \(channel) is \(kind.rawValue)"
        case .notSubscribed(let channel):
            return "not subscribed to \(channel)"
        case .notConnected:
            return "not connected"
        case .invalidOptions(let why):
            return why
        case .noUserAuthenticator:
            return "signing in needs a user authenticator: give --user-auth-endpoint or --secret"
        }
    }
}
