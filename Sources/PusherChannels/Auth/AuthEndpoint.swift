/// An app's HTTP auth endpoint as pusher-js configures one (`authEndpoint`, `userAuthentication.endpoint`):
/// where to POST, the extra headers and form fields to send, and how long to wait. Both
/// ``EndpointAuthorizer`` and ``EndpointUserAuthenticator`` speak to one.
public struct AuthEndpoint: Sendable {
    /// The endpoint, e.g. `https://app.example/pusher/auth`.
    public var url: String
    /// Extra request headers (a session cookie, a bearer token).
    public var headers: [(name: String, value: String)]
    /// Extra form fields sent after the protocol's own (`socket_id`, and `channel_name` for a channel).
    public var parameters: [(name: String, value: String)]
    /// Seconds to wait for the endpoint.
    public var timeout: Double

    /// - Parameters:
    ///   - url: the endpoint, e.g. `https://app.example/pusher/auth`.
    ///   - headers: extra request headers.
    ///   - parameters: extra form fields.
    ///   - timeout: seconds to wait for the endpoint (10 by default).
    public init(
        url: String, headers: [(name: String, value: String)] = [], parameters: [(name: String, value: String)] = [],
        timeout: Double = 10
    ) {
        self.url = url
        self.headers = headers
        self.parameters = parameters
        self.timeout = timeout
    }

    /// The form POST of `fields` followed by the extra parameters.
    func request(_ fields: [(String, String)]) -> AuthEndpointRequest {
        AuthEndpointRequest(
            url: url, headers: headers, fields: fields + parameters.map { ($0.name, $0.value) },
            timeout: timeout)
    }
}
