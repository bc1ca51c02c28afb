/// Authorizes through the app's HTTP endpoint, as pusher-js's `authEndpoint` does: a form POST of
/// `socket_id` and `channel_name` (plus extra parameters and headers), answered with JSON
/// `{"auth":…, "channel_data":…, "shared_secret":…}`.
public struct EndpointAuthorizer: TracingAuthorizer {
    /// The endpoint: its URL, extra headers and form fields, and timeout.
    public var endpoint: AuthEndpoint

    /// An authorizer for the endpoint at `url`; the parameters are those of ``AuthEndpoint``'s initializer.
    public init(
        url: String, headers: [(name: String, value: String)] = [], parameters: [(name: String, value: String)] = [],
        timeout: Double = 10
    ) {
        endpoint = AuthEndpoint(url: url, headers: headers, parameters: parameters, timeout: timeout)
    }

    private func request(channel: String, socketID: String) -> AuthEndpointRequest {
        endpoint.request([("socket_id", socketID), ("channel_name", channel)])
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
        var details = AuthorizationDetails(authorizer: endpoint.url)
        do {
            let answer = try await request(channel: channel, socketID: socketID).exchange()
            details.status = answer.status
            details.responseBody = String(
                decoding: answer.body.utf8.prefix(AuthorizationTrace.excerptLimit + 1), as: UTF8.self)
            let body = try AuthEndpointRequest.require2xx(answer)
            return (.success(try ChannelAuthorization(responseBody: body)), details)
        } catch {
            return (.failure(error), details)
        }
    }
}
