import Foundation
import NIOHTTP1
import PusherProtocol

/// A client of Pusher's HTTP API (trigger events, query channels), signed as the official server SDKs sign.
///
/// Works against Pusher itself and any compatible server. `pushtop trigger` and the bench use it; so can any
/// Swift program that publishes.
public struct PusherAPIClient: Sendable {
    /// Where requests go, and the app they are signed as.
    public let configuration: PusherAPIConfiguration

    /// A client of the HTTP API at `configuration`: each request on a connection of its own (nothing to shut
    /// down).
    /// - Parameter configuration: the server and the app (id, key, secret) to sign requests as.
    public init(configuration: PusherAPIConfiguration) {
        self.configuration = configuration
    }

    /// `POST /apps/{id}/events`: one event on up to 100 channels.
    /// - Parameters:
    ///   - channels: the channels to publish on (at most 100).
    ///   - event: the event name.
    ///   - data: the event's data, sent as is (usually a JSON document; at most 10 KB on Pusher).
    ///   - socketID: a connection not to send the event to (the one that caused it).
    ///   - info: attributes to report per channel (`subscription_count`, `user_count`).
    public func trigger(
        channels: [String], event: String, data: String, socketID: String? = nil, info: [String] = []
    ) async throws(PusherAPIError) -> PusherAPIResponse {
        var body: [String: JSONValue] = [
            "name": .string(event), "data": .string(data), "channels": .array(channels.map { .string($0) }),
        ]
        if let socketID { body["socket_id"] = .string(socketID) }
        if !info.isEmpty { body["info"] = .string(info.joined(separator: ",")) }
        return try await send(method: "POST", path: "/events", body: JSONValue.object(body).jsonString)
    }

    /// `POST /apps/{id}/batch_events`: up to 10 events in one request.
    public func triggerBatch(_ events: [PusherBatchEvent]) async throws(PusherAPIError) -> PusherAPIResponse {
        let batch: [JSONValue] = events.map { event in
            var fields: [String: JSONValue] = [
                "channel": .string(event.channel), "name": .string(event.name), "data": .string(event.data),
            ]
            if let socketID = event.socketID { fields["socket_id"] = .string(socketID) }
            if !event.info.isEmpty { fields["info"] = .string(event.info.joined(separator: ",")) }
            return .object(fields)
        }
        return try await send(
            method: "POST", path: "/batch_events", body: JSONValue.object(["batch": .array(batch)]).jsonString)
    }

    /// `GET /apps/{id}/channels`: occupied channels, optionally filtered by prefix.
    public func channels(prefix: String? = nil, info: [String] = []) async throws(PusherAPIError) -> PusherAPIResponse {
        var query: [String: String] = [:]
        if let prefix { query["filter_by_prefix"] = prefix }
        if !info.isEmpty { query["info"] = info.joined(separator: ",") }
        return try await send(method: "GET", path: "/channels", query: query)
    }

    /// `GET /apps/{id}/channels/{name}`: whether a channel is occupied, and the requested counts.
    public func channel(_ name: String, info: [String] = []) async throws(PusherAPIError) -> PusherAPIResponse {
        var query: [String: String] = [:]
        if !info.isEmpty { query["info"] = info.joined(separator: ",") }
        return try await send(method: "GET", path: "/channels/\(name)", query: query)
    }

    /// `GET /apps/{id}/channels/{name}/users`: the user ids on a presence channel.
    public func users(in channel: String) async throws(PusherAPIError) -> PusherAPIResponse {
        try await send(method: "GET", path: "/channels/\(channel)/users")
    }

    /// Sends a signed request to `/apps/{id}` + `path`. Non-2xx answers throw ``PusherAPIError/status(code:message:)``.
    public func send(
        method: String, path: String, query: [String: String] = [:], body: String? = nil
    ) async throws(PusherAPIError) -> PusherAPIResponse {
        let fullPath = "/apps/\(configuration.appID)\(path)"
        let bodyBytes = body.map { Array($0.utf8) }
        let parameters = APIRequestSignature.sign(
            method: method, path: fullPath, key: configuration.key, secret: configuration.secret, body: bodyBytes,
            parameters: query)
        let queryString = Self.queryString(parameters)
        var exchange = HTTPExchange(
            method: HTTPMethod(rawValue: method), url: "\(configuration.baseURL)\(fullPath)?\(queryString)",
            timeout: configuration.timeout)
        exchange.headers = [("User-Agent", "pushtop")]
        if let bodyBytes {
            exchange.headers.append(("Content-Type", "application/json"))
            exchange.body = bodyBytes
        }
        let status: Int
        let text: String
        do {
            let response = try await exchange.send()
            status = response.status
            text = response.text
        } catch {
            throw .transport(error.description)
        }
        guard (200..<300).contains(status) else { throw .status(code: status, message: text) }
        return PusherAPIResponse(status: status, body: text)
    }

    private static let unreserved = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// The query of a signed request: the parameters sorted by name, each percent-encoded (`package`: `pushtop
    /// conform` builds its requests the same way).
    package static func queryString(_ parameters: [String: String]) -> String {
        parameters.sorted { $0.key < $1.key }.map { "\(escape($0.key))=\(escape($0.value))" }.joined(separator: "&")
    }
}
