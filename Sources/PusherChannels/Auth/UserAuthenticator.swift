import PusherProtocol

/// What `pusher:signin` needs from the app's server: the signature and the signed `user_data`.
public struct UserAuthentication: Sendable, Hashable {
    /// `key:signature` (HMAC-SHA256 of `socket_id::user::user_data`).
    public var auth: String
    /// The JSON text of the user (`{"id":…, "user_info":…, "watchlist":[…]}`), exactly as signed.
    public var userData: String

    /// A user authentication with the given signature and the exact `user_data` text it signs.
    public init(auth: String, userData: String) {
        self.auth = auth
        self.userData = userData
    }

    /// Reads the JSON a user-authentication endpoint returns: `{"auth":…, "user_data":…}`.
    /// - Throws: ``AuthError/malformedResponse(_:)`` saying what is missing.
    public init(responseBody: String) throws(AuthError) {
        let answer = try AuthEndpointAnswer(responseBody: responseBody)
        switch answer.fields["user_data"] {
        case .string(let s)?: self.userData = s
        case .object?: self.userData = answer.fields["user_data"]!.jsonString
        default:
            throw .malformedResponse("response has no \"user_data\" string: \(AuthError.snippet(responseBody))")
        }
        self.auth = answer.auth
    }
}

/// Authenticates the user of a connection for ``PusherClient/signIn()``, like pusher-js's `userAuthentication`.
///
/// Implementations: ``EndpointUserAuthenticator`` (the app's HTTP endpoint, default path `/pusher/user-auth`),
/// ``SecretUserAuthenticator`` (signs locally with the app secret: development only) and
/// ``CallbackUserAuthenticator`` (supplied by the caller).
public protocol UserAuthenticator: Sendable {
    /// Returns the signed user for the connection `socketID`.
    /// - Throws: ``AuthError``, or any error, reported as `ClientEvent/signInFailed(status:message:)`.
    func authenticate(socketID: String) async throws -> UserAuthentication
}
