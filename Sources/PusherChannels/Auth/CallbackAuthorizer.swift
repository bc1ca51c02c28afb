/// Authorization supplied by the caller: a closure that returns it (from the app's own API, a cache, …).
public struct CallbackAuthorizer: Authorizer {
    public let callback: @Sendable (_ channel: String, _ socketID: String) async throws -> ChannelAuthorization

    public init(_ callback: @escaping @Sendable (_ channel: String, _ socketID: String) async throws -> ChannelAuthorization) {
        self.callback = callback
    }

    public func authorize(channel: String, socketID: String) async throws -> ChannelAuthorization {
        try await callback(channel, socketID)
    }
}
