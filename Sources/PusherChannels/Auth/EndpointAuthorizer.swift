import AsyncHTTPClient

/// Authorizes through the app's HTTP endpoint, as pusher-js's `authEndpoint` does: a form POST of
/// `socket_id` and `channel_name` (plus extra parameters and headers), answered with JSON
/// `{"auth":…, "channel_data":…, "shared_secret":…}`.
public struct EndpointAuthorizer: TracingAuthorizer {
    /// The endpoint, e.g. `https://app.example/pusher/auth`.
    public var url: String
    /// Extra request headers (a session cookie, a bearer token).
    public var headers: [(name: String, value: String)]
    /// Extra form fields sent after `socket_id` and `channel_name`.
    public var parameters: [(name: String, value: String)]
    /// Seconds to wait for the endpoint.
    public var timeout: Double
    private let client: HTTPClient

    /// - Parameters:
    ///   - url: the endpoint, e.g. `https://app.example/pusher/auth`.
    ///   - headers: extra request headers.
    ///   - parameters: extra form fields.
    ///   - timeout: seconds to wait for the endpoint (10 by default).
    ///   - client: the HTTP client that sends the requests; the shared one by default.
    public init(url: String, headers: [(name: String, value: String)] = [], parameters: [(name: String, value: String)] = [],
                timeout: Double = 10, client: HTTPClient = .shared) {
        self.url = url
        self.headers = headers
        self.parameters = parameters
        self.timeout = timeout
        self.client = client
    }

    private func request(channel: String, socketID: String) -> AuthEndpointRequest {
        AuthEndpointRequest(
            url: url, headers: headers,
            fields: [("socket_id", socketID), ("channel_name", channel)] + parameters.map { ($0.name, $0.value) },
            timeout: timeout, client: client)
    }

    /// The form body sent for a channel.
    public func formBody(channel: String, socketID: String) -> String {
        request(channel: channel, socketID: socketID).formBody
    }

    public func authorize(channel: String, socketID: String) async throws -> ChannelAuthorization {
        try await authorizeTraced(channel: channel, socketID: socketID).result.get()
    }

    /// Authorizes and reports the endpoint's status and response body (for the auth inspector).
    public func authorizeTraced(channel: String, socketID: String) async
        -> (result: Result<ChannelAuthorization, any Error>, details: AuthorizationDetails)
    {
        var details = AuthorizationDetails(authorizer: url)
        do {
            let answer = try await request(channel: channel, socketID: socketID).exchange()
            details.status = answer.status
            details.responseBody = String(decoding: answer.body.utf8.prefix(AuthorizationTrace.excerptLimit + 1), as: UTF8.self)
            let body = try AuthEndpointRequest.require2xx(answer)
            return (.success(try ChannelAuthorization(responseBody: body)), details)
        } catch {
            return (.failure(error), details)
        }
    }
}
