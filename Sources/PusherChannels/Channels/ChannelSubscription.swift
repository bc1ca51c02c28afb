import PusherProtocol

/// Where a channel's subscription stands.
public enum SubscriptionState: Sendable, Hashable {
    /// Waiting for a connection.
    case pending
    /// Waiting for the authorizer.
    case authorizing
    /// `pusher:subscribe` sent, no answer yet.
    case subscribing
    case subscribed
    /// Authorization or subscription failed; the reason is kept.
    case failed(String)
}

/// The client's record of one channel.
struct ChannelSubscription: Sendable {
    let name: String
    let kind: ChannelKind
    var state: SubscriptionState = .pending
    /// Bumped for every authorization request, so that a late answer to an older one is ignored.
    var authorizationGeneration = 0
    /// The connection attempt on which `pusher:subscribe` was sent (no duplicate frames per connection).
    var subscribedOnAttempt: Int?
    var sharedSecret: [UInt8]?
    var roster = PresenceRoster()
    /// Encrypted events held while a fresh key is fetched after a decryption failure.
    var heldEncrypted: [PusherMessage] = []
    var refreshingKey = false
    /// Whether a decryption failure already triggered a key refresh on this key.
    var keyRefreshed = false
    /// An authorization the caller gave with the subscribe, used for the first subscription instead of the
    /// authorizer (then cleared: it was signed for one socket id).
    var suppliedAuthorization: ChannelAuthorization?

    init(name: String) {
        self.name = name
        self.kind = ChannelKind(channelName: name)
    }
}
