/// Authorization supplied by the caller: a closure that returns it (from the app's own API, a cache, …).
public struct CallbackAuthorizer: Authorizer {
    /// Returns the authorization for a channel and a socket id.
    public let callback: @Sendable (_ channel: String, _ socketID: String) async throws -> ChannelAuthorization

    /// An authorizer that calls `callback` for every channel that needs authorization; what it throws is
    /// reported as a subscription error for that channel.
    public init(
        _ callback: @escaping @Sendable (_ channel: String, _ socketID: String) async throws -> ChannelAuthorization
    ) {
        self.callback = callback
    }

    public func authorize(channel: String, socketID: String) async throws -> ChannelAuthorization {
        try await callback(channel, socketID)
    }
}
