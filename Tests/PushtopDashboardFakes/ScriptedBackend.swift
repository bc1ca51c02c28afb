import PusherProtocol
import PushtopDashboard

/// A backend without a network: it answers commands with the events a Pusher client would publish, for the
/// preview and tests.
///
/// Subscribing to a name containing `forbidden` fails like an auth endpoint answering 403; presence channels
/// get a roster with `me` as the local user; client events are recorded in ``sent``.
public actor ScriptedBackend: DashboardBackend {
    public nonisolated let connectionDescription: String
    private let post: @Sendable ([ClientEvent]) -> Void
    private var state: ConnectionState = .connected
    /// The local user id in presence channels.
    public let me: String
    /// Client events triggered through ``trigger(channel:event:data:)``.
    public private(set) var sent: [(channel: String, event: String, data: JSONValue)] = []
    /// Commands received, in order (`subscribe x`, `unsubscribe x`, `connect`, `disconnect`).
    public private(set) var commands: [String] = []

    public init(
        connectionDescription: String = "127.0.0.1:0 (scripted, no TLS)", me: String = "you",
        post: @escaping @Sendable ([ClientEvent]) -> Void
    ) {
        self.connectionDescription = connectionDescription
        self.me = me
        self.post = post
    }

    public func subscribe(_ channel: String) async throws {
        commands.append("subscribe \(channel)")
        post([.subscribing(channel: channel)])
        let kind = ChannelKind(channelName: channel)
        if channel.contains("forbidden") {
            if kind.requiresAuthorization {
                post([
                    .authorization(
                        AuthorizationTrace(
                            channel: channel, socketID: "4242.1717",
                            authorizer: "http://127.0.0.1:0/pusher/auth", startedAt: 0, duration: 0.012, status: 403,
                            responseExcerpt: #"{"error":"not allowed"}"#, error: "auth endpoint answered HTTP 403"))
                ])
            }
            post([.subscriptionError(channel: channel, status: 403, message: "auth endpoint refused")])
            return
        }
        if kind.requiresAuthorization {
            // Signed with the preview's credentials (`preview-key`/`preview-secret`), or for another key when the
            // name says `wrongkey`.
            let data = kind == .presence ? #"{"user_id":"\#(me)"}"# : nil
            let key = channel.contains("wrongkey") ? "other-key" : "preview-key"
            let auth = ChannelAuthSignature.auth(
                key: key, secret: "preview-secret", socketID: "4242.1717",
                channel: channel, channelData: data)
            post([
                .authorization(
                    AuthorizationTrace(
                        channel: channel, socketID: "4242.1717",
                        authorizer: "http://127.0.0.1:0/pusher/auth", startedAt: 0, duration: 0.008, status: 200,
                        responseExcerpt: #"{"auth":"\#(auth)"}"#, auth: auth, channelData: data))
            ])
        }
        let presence: PresenceSnapshot? =
            ChannelKind(channelName: channel) == .presence
            ? PresenceSnapshot(me: me, members: [PresenceMember(userID: me, userInfo: ["name": "You"])]) : nil
        post([.subscribed(channel: channel, presence: presence)])
    }

    public func unsubscribe(_ channel: String) async {
        commands.append("unsubscribe \(channel)")
        post([.unsubscribed(channel: channel)])
    }

    public func trigger(channel: String, event: String, data: JSONValue) async throws {
        commands.append("trigger \(channel) \(event)")
        sent.append((channel, event, data))
    }

    public func connect() async {
        commands.append("connect")
        guard state != .connected else { return }
        let previous = state
        state = .connected
        post([
            .state(StateChange(previous: previous, current: .connecting)),
            .state(StateChange(previous: .connecting, current: .connected, socketID: "4242.1717")),
        ])
    }

    /// Signs in as ``me``, watching `alice` (online) and `zed` (offline).
    public func signIn() async throws {
        commands.append("signin")
        let userData = #"{"id":"\#(me)","watchlist":["alice","zed"]}"#
        post([
            .signedIn(SignedInUser(id: me, userData: userData, watchlist: ["alice", "zed"])),
            .watchlist(WatchlistChange(status: .online, userIDs: ["alice"])),
        ])
    }

    public func signOut() async {
        commands.append("signout")
        post([.signedOut(userID: me)])
    }

    public func disconnect() async {
        commands.append("disconnect")
        guard state != .disconnected else { return }
        let previous = state
        state = .disconnected
        post([.state(StateChange(previous: previous, current: .disconnected))])
    }
}
