import PusherProtocol

/// What an authorizer can tell about one attempt beyond its result: the HTTP status and response body.
public struct AuthorizationDetails: Sendable, Hashable {
    /// Who authorized: an endpoint's URL, `local secret`, `callback`.
    public var authorizer: String
    /// The endpoint's HTTP status; `nil` when no HTTP request was answered.
    public var status: Int?
    /// The response body (the trace keeps a redacted, size-capped excerpt).
    public var responseBody: String?

    /// Details of one attempt by `authorizer`, with the status and response body when there were any.
    public init(authorizer: String, status: Int? = nil, responseBody: String? = nil) {
        self.authorizer = authorizer
        self.status = status
        self.responseBody = responseBody
    }
}

/// An authorizer that reports what it did, for `AuthorizationTrace`s (the client asks for the details
/// when the authorizer offers them; others are traced with their result and timing only).
public protocol TracingAuthorizer: Authorizer {
    /// Authorizes like ``Authorizer/authorize(channel:socketID:)`` and says what happened on the way.
    func authorizeTraced(channel: String, socketID: String) async
        -> (result: Result<ChannelAuthorization, any Error>, details: AuthorizationDetails)
}
