import AsyncHTTPClient

/// Authenticates the user through the app's HTTP endpoint, as pusher-js's `userAuthentication` does: a form
/// POST of `socket_id` (plus extra parameters and headers), answered with JSON `{"auth":…, "user_data":…}`.
/// pusher-js's default path is `/pusher/user-auth`.
public struct EndpointUserAuthenticator: UserAuthenticator {
    /// The endpoint, e.g. `https://app.example/pusher/user-auth`.
    public var url: String
    /// Extra request headers (a session cookie, a bearer token).
    public var headers: [(name: String, value: String)]
    /// Extra form fields sent after `socket_id`.
    public var parameters: [(name: String, value: String)]
    /// Seconds to wait for the endpoint.
    public var timeout: Double
    private let client: HTTPClient

    /// - Parameters:
    ///   - url: the endpoint, e.g. `https://app.example/pusher/user-auth`.
    ///   - headers: extra request headers.
    ///   - parameters: extra form fields.
    ///   - timeout: seconds to wait for the endpoint (10 by default).
    ///   - client: the HTTP client that sends the requests; the shared one by default.
    public init(url: String, headers: [(name: String, value: String)] = [],
                parameters: [(name: String, value: String)] = [], timeout: Double = 10, client: HTTPClient = .shared) {
        self.url = url
        self.headers = headers
        self.parameters = parameters
        self.timeout = timeout
        self.client = client
    }

    private func request(socketID: String) -> AuthEndpointRequest {
        AuthEndpointRequest(
            url: url, headers: headers, fields: [("socket_id", socketID)] + parameters.map { ($0.name, $0.value) },
            timeout: timeout, client: client)
    }

    /// The form body sent for a connection.
    public func formBody(socketID: String) -> String {
        request(socketID: socketID).formBody
    }

    public func authenticate(socketID: String) async throws -> UserAuthentication {
        try UserAuthentication(responseBody: try await request(socketID: socketID).send())
    }
}
