/// Authenticates the user through the app's HTTP endpoint, as pusher-js's `userAuthentication` does: a form
/// POST of `socket_id` (plus extra parameters and headers), answered with JSON `{"auth":…, "user_data":…}`.
/// pusher-js's default path is `/pusher/user-auth`.
public struct EndpointUserAuthenticator: UserAuthenticator {
    /// The endpoint: its URL, extra headers and form fields, and timeout.
    public var endpoint: AuthEndpoint

    /// An authenticator for the endpoint at `url`; the parameters are those of ``AuthEndpoint``'s initializer.
    public init(
        url: String, headers: [(name: String, value: String)] = [],
        parameters: [(name: String, value: String)] = [], timeout: Double = 10
    ) {
        endpoint = AuthEndpoint(url: url, headers: headers, parameters: parameters, timeout: timeout)
    }

    private func request(socketID: String) -> AuthEndpointRequest {
        endpoint.request([("socket_id", socketID)])
    }

    /// The form body sent for a connection.
    public func formBody(socketID: String) -> String {
        request(socketID: socketID).formBody
    }

    public func authenticate(socketID: String) async throws -> UserAuthentication {
        try UserAuthentication(responseBody: try await request(socketID: socketID).send())
    }
}
