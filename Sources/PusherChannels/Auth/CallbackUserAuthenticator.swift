/// User authentication supplied by the caller: a closure that returns it (from the app's own API, …).
public struct CallbackUserAuthenticator: UserAuthenticator {
    /// Returns the signed user for a socket id.
    public let callback: @Sendable (_ socketID: String) async throws -> UserAuthentication

    public init(_ callback: @escaping @Sendable (_ socketID: String) async throws -> UserAuthentication) {
        self.callback = callback
    }

    public func authenticate(socketID: String) async throws -> UserAuthentication {
        try await callback(socketID)
    }
}
