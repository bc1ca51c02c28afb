/// User authentication supplied by the caller: a closure that returns it (from the app's own API, …).
public struct CallbackUserAuthenticator: UserAuthenticator {
    /// Returns the signed user for a socket id.
    public let callback: @Sendable (_ socketID: String) async throws -> UserAuthentication

    /// An authenticator that calls `callback` on every sign-in; what it throws is reported as a failed sign-in.
    public init(_ callback: @escaping @Sendable (_ socketID: String) async throws -> UserAuthentication) {
        self.callback = callback
    }

    public func authenticate(socketID: String) async throws -> UserAuthentication {
        try await callback(socketID)
    }
}
