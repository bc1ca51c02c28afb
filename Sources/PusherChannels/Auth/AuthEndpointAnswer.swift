import PusherProtocol

/// The JSON object an auth endpoint answers with and its `auth` signature (`key:signature`), which channel
/// authorizations and user authentications both carry; each reads its other fields from ``fields``.
struct AuthEndpointAnswer {
    /// The non-empty `auth` string.
    var auth: String
    /// Every field of the answer.
    var fields: [String: JSONValue]

    /// Reads an endpoint's response body.
    /// - Throws: ``AuthError/malformedResponse(_:)`` when it is not a JSON object or has no non-empty `auth`.
    init(responseBody: String) throws(AuthError) {
        guard let value = JSONValue.parseIfJSON(responseBody), case .object(let fields) = value else {
            throw .malformedResponse("response is not a JSON object: \(AuthError.snippet(responseBody))")
        }
        guard let auth = fields["auth"]?.stringValue, !auth.isEmpty else {
            throw .malformedResponse("response has no \"auth\" string: \(AuthError.snippet(responseBody))")
        }
        self.auth = auth
        self.fields = fields
    }
}
