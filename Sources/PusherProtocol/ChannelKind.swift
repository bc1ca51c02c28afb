/// The kind of a channel, decided by its name's prefix.
public enum ChannelKind: String, Sendable, Hashable, CaseIterable {
    case `public`
    case `private`
    case presence
    case encrypted
    case cache

    /// The kind a channel name implies (`private-encrypted-` before `private-`).
    public init(channelName name: String) {
        if name.hasPrefix("private-encrypted-") {
            self = .encrypted
        } else if name.hasPrefix("private-") {
            self = .private
        } else if name.hasPrefix("presence-") {
            self = .presence
        } else if name.hasPrefix("cache-") {
            self = .cache
        } else {
            self = .public
        }
    }

    /// Whether subscribing needs an authorization signature.
    public var requiresAuthorization: Bool {
        switch self {
        case .private, .presence, .encrypted: return true
        case .public, .cache: return false
        }
    }

    /// Whether clients may send `client-` events on it (pusher-js refuses encrypted channels).
    public var allowsClientEvents: Bool {
        self == .private || self == .presence
    }
}
