import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Authorizes through the app's HTTP endpoint, as pusher-js's `authEndpoint` does: a form POST of
/// `socket_id` and `channel_name` (plus extra parameters and headers), answered with JSON
/// `{"auth":…, "channel_data":…, "shared_secret":…}`.
public struct EndpointAuthorizer: TracingAuthorizer {
    public var url: String
    public var headers: [(name: String, value: String)]
    public var parameters: [(name: String, value: String)]
    /// Seconds to wait for the endpoint.
    public var timeout: Double
    private let client: HTTPClient

    public init(url: String, headers: [(name: String, value: String)] = [], parameters: [(name: String, value: String)] = [],
                timeout: Double = 10, client: HTTPClient = .shared) {
        self.url = url
        self.headers = headers
        self.parameters = parameters
        self.timeout = timeout
        self.client = client
    }

    /// The form body sent for a channel.
    public func formBody(channel: String, socketID: String) -> String {
        let fields = [("socket_id", socketID), ("channel_name", channel)] + parameters.map { ($0.name, $0.value) }
        return fields.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
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
            return (.success(try await request(channel: channel, socketID: socketID, details: &details)), details)
        } catch {
            return (.failure(error), details)
        }
    }

    private func request(channel: String, socketID: String, details: inout AuthorizationDetails) async throws
        -> ChannelAuthorization
    {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(string: formBody(channel: channel, socketID: socketID)))
        let response: HTTPClientResponse
        var body: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout
            || error == .connectTimeout
        {
            throw AuthError.timeout(seconds: timeout)
        } catch {
            throw AuthError.unreachable(AuthError.snippet(String(describing: error)))
        }
        let text = body.readString(length: body.readableBytes) ?? ""
        details.status = Int(response.status.code)
        details.responseBody = String(decoding: text.utf8.prefix(AuthorizationTrace.excerptLimit + 1), as: UTF8.self)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw AuthError.status(Int(response.status.code), body: AuthError.snippet(text))
        }
        return try ChannelAuthorization(responseBody: text)
    }

    private static let formAllowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._*")
        return set
    }()

    static func formEncode(_ s: String) -> String {
        (s.addingPercentEncoding(withAllowedCharacters: formAllowed) ?? s).replacingOccurrences(of: "%20", with: "+")
    }
}
