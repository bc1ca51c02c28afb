import PusherProtocol

/// Pusher's rules for `pusher:subscribe` as a value: the request and what the hub knows in, a decision out.
///
/// The hub asks it, then applies the decision (records, cluster, webhooks, frames): no socket, roster or clock
/// lives here, so every rule (names, signatures, `channel_data`, the presence limit) is tested directly: "given a
/// presence channel with 100 members, when a new user subscribes, then `LimitReached` 403".
struct SubscriptionAdmission: Sendable {
    /// The app whose key and secret sign subscriptions.
    let app: AppCredentials
    /// The sizes of `user_id`, `user_info` and presence rosters.
    let limits: PusherLimits

    /// The connection asking.
    struct Subscriber: Sendable {
        /// Its `socket_id` (what signatures sign).
        var socketID: String
        /// The channels it is subscribed to already.
        var channels: Set<String>
        /// The user it signed in as (`pusher:signin`), if it did.
        var signedInUserID: String?
    }

    /// A presence channel on this node: how many members it has, and whether a user is one of them.
    typealias Occupancy = (_ channel: String, _ userID: String) -> (members: Int, isMember: Bool)

    /// What the hub does with the request.
    enum Decision: Sendable, Equatable {
        /// The message names no channel: a `pusher:error`, nothing more.
        case malformed(message: String)
        /// The connection is subscribed already: a `pusher:error`, nothing more.
        case duplicate(message: String)
        /// Refused: a `pusher:error` and a `pusher_internal:subscription_error`.
        case refused(Refusal)
        /// The subscription goes ahead.
        case admitted(Admitted)
    }

    /// Why a subscription was refused, as Pusher words it.
    struct Refusal: Error, Sendable, Equatable {
        /// The channel as repeated back (an excerpt of a long name).
        var channel: String
        /// `AuthError`, `InvalidChannel`, `PresenceError` or `LimitReached`.
        var type: String
        var message: String
        /// The HTTP-like status of `subscription_error`.
        var status: Int
    }

    /// A subscription that goes ahead.
    struct Admitted: Sendable, Equatable {
        var channel: String
        var kind: ChannelKind
        /// The member of a presence channel (from `channel_data`).
        var member: Member?
        /// `#server-to-user-{id}`: never shared with the cluster, no webhooks, no counts.
        var isUserChannel: Bool
    }

    /// A presence member as `channel_data` gives it.
    struct Member: Sendable, Equatable {
        var userID: String
        var info: JSONValue?
    }

    /// Decides on a `pusher:subscribe` whose `data` is `data`.
    /// - Parameters:
    ///   - clusterDecidesMembers: the cluster's registry applies the presence limit (clustered and Redis up).
    ///   - occupancy: this node's presence channels, for the limit when the node decides alone.
    func decide(
        _ data: JSONValue?, from subscriber: Subscriber, clusterDecidesMembers: Bool,
        occupancy: Occupancy
    ) -> Decision {
        guard let data, let channel = data["channel"]?.stringValue else {
            return .malformed(message: "pusher:subscribe needs data.channel")
        }
        // A name is repeated back at most as an excerpt: a huge one must not be echoed three times.
        let shown = ErrorText.excerpt(channel)
        let refuse = { (type: String, message: String, status: Int) in
            Decision.refused(Refusal(channel: shown, type: type, message: message, status: status))
        }
        let isUserChannel = channel.hasPrefix(PusherEventName.serverToUserPrefix)
        if isUserChannel {
            if let why = Self.serverToUserRefusal(channel, signedIn: subscriber.signedInUserID) {
                return refuse("AuthError", why, 403)
            }
        } else {
            do {
                try ChannelName.validate(channel)
            } catch {
                return refuse("InvalidChannel", "Invalid channel name '\(shown)': \(error.description)", 400)
            }
        }
        if subscriber.channels.contains(channel) {
            return .duplicate(message: "Existing subscription to channel \(shown)")
        }
        let kind = ChannelKind(channelName: channel)
        var member: Member?
        if kind.requiresAuthorization {
            switch authorize(data, channel: channel, kind: kind, socketID: subscriber.socketID) {
            case .failure(let refusal): return .refused(refusal)
            case .success(let authorized): member = authorized
            }
        }
        if let member, !clusterDecidesMembers {
            let (count, isMember) = occupancy(channel, member.userID)
            if !isMember, count >= limits.maxPresenceMembers {
                let limit = limits.maxPresenceMembers
                return refuse("LimitReached", "Presence channel \(channel) is full: the limit is \(limit) members", 403)
            }
        }
        return .admitted(Admitted(channel: channel, kind: kind, member: member, isUserChannel: isUserChannel))
    }

    /// Checks the `auth` signature of a private, presence or encrypted channel; returns the presence member.
    private func authorize(_ data: JSONValue, channel: String, kind: ChannelKind, socketID: String)
        -> Result<Member?, Refusal>
    {
        let shown = ErrorText.excerpt(channel)
        let refusal = { (message: String) in Refusal(channel: shown, type: "AuthError", message: message, status: 401) }
        let channelData: String?
        switch data["channel_data"] {
        case .string(let s)?: channelData = s
        case nil, .null?: channelData = nil
        case let other?: channelData = other.jsonString
        }
        guard let auth = data["auth"]?.stringValue, !auth.isEmpty else {
            return .failure(refusal("Subscription to \(shown) needs an auth signature"))
        }
        let parts = auth.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else {
            return .failure(
                refusal(
                    "Auth value for subscription to \(shown) is invalid: should be of format 'key:signature'"))
        }
        guard String(parts[0]) == app.key else {
            return .failure(
                refusal(
                    "Invalid key '\(ErrorText.excerpt(String(parts[0])))' in auth value for subscription to \(shown)"))
        }
        let signed = kind == .presence ? (channelData ?? "") : nil
        guard
            ChannelAuthSignature.verify(
                auth: auth, key: app.key, secret: app.secret, socketID: socketID, channel: channel, channelData: signed)
        else {
            let stringToSign = ChannelAuthSignature.stringToSign(
                socketID: socketID, channel: channel, channelData: signed)
            let expected = ErrorText.excerpt(stringToSign)
            let got = ErrorText.excerpt(String(parts[1]))
            return .failure(
                refusal(
                    "Invalid signature: Expected HMAC SHA256 hex digest of \(expected), but got \(got)"))
        }
        guard kind == .presence else { return .success(nil) }
        return presenceMember(channelData: channelData ?? "", channel: channel).map { Optional($0) }
    }

    /// Reads `{"user_id":…, "user_info":…}` from presence `channel_data`, within Pusher's size limits.
    func presenceMember(channelData: String, channel: String) -> Result<Member, Refusal> {
        let refusal = { (message: String, status: Int) in
            Refusal(channel: ErrorText.excerpt(channel), type: "PresenceError", message: message, status: status)
        }
        guard let parsed = JSONValue.parseIfJSON(channelData), case .object(let fields) = parsed else {
            return .failure(
                refusal(
                    "Presence channel \(ErrorText.excerpt(channel)) needs channel_data holding a JSON object", 400))
        }
        let userID: String
        switch fields["user_id"] {
        case .string(let s)?: userID = s
        case .number(let n)?: userID = JSONValue.number(n).jsonString
        default:
            return .failure(
                refusal(
                    "channel_data for \(ErrorText.excerpt(channel)) must have a user_id (string or number)", 400))
        }
        guard !userID.isEmpty, userID.count <= limits.maxUserIDLength else {
            return .failure(refusal("user_id must be 1 to \(limits.maxUserIDLength) characters", 400))
        }
        let info = fields["user_info"]
        if let info, info.jsonString.utf8.count > limits.maxUserInfoBytes {
            return .failure(
                refusal(
                    "user_info of \(info.jsonString.utf8.count) bytes exceeds the \(limits.maxUserInfoBytes)-byte limit",
                    413))
        }
        return .success(Member(userID: userID, info: info))
    }

    /// Why a connection signed in as `signedIn` may not subscribe to `#server-to-user-{id}`, or `nil` when it may
    /// (it is signed in as that user).
    static func serverToUserRefusal(_ channel: String, signedIn: String?) -> String? {
        guard let userID = UserIDs.ofServerToUserChannel(channel) else { return "not a user channel" }
        guard let signedIn else {
            return "Subscription to \(channel) needs a signed-in connection (pusher:signin first)"
        }
        guard signedIn == userID else {
            return "Connection is signed in as \(signedIn); it cannot subscribe to \(channel)"
        }
        return nil
    }
}
