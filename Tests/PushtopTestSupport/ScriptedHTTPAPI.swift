import Foundation
import Hummingbird
import NIOCore
import PusherProtocol
import Synchronization

/// The HTTP side of a ``ScriptedPusherServer``: a Pusher HTTP API written apart from pushtop's (Hummingbird's
/// router, Foundation's query parsing), so that `pushtop proxy` can be tested in front of a server that is not
/// pushtop. It records every request that reaches it, as it arrived, and answers as Pusher documents:
///
/// - a request not signed with the app's key and secret: 401; an unknown app id or path: 404; a body over
///   ``maxBodyBytes``: 413;
/// - `POST /apps/{id}/events` and `/batch_events`: each event is sent to the connections subscribed to its channels
///   (in request order), answered `{}`;
/// - `GET /apps/{id}/channels`, `/channels/{name}` (with `info=subscription_count`), `/channels/{name}/users`.
public final class ScriptedHTTPAPI: Sendable {
    /// An app the API serves.
    public struct App: Sendable {
        public var id: String
        public var key: String
        public var secret: String

        public init(id: String, key: String, secret: String) {
            self.id = id
            self.key = key
            self.secret = secret
        }
    }

    /// One request as it reached the server.
    public struct Received: Sendable, CustomStringConvertible {
        public var method: String
        /// Path and query, as sent.
        public var target: String
        public var headers: [(name: String, value: String)]
        public var body: String
        public var description: String { "\(method) \(target) (\(body.utf8.count) bytes)" }
    }

    /// Bodies read at most (Pusher's own limit is far lower); more is answered 413.
    public static let maxBodyBytes = 1 << 20

    let apps: [App]
    let received = Mutex<[Received]>([])

    init(apps: [App]) {
        self.apps = apps
    }

    /// The open connections subscribed to a channel (`nil`: every open connection).
    typealias Subscribers = @Sendable (String?) -> [ScriptedConnection]

    /// Answers one request.
    func answer(_ request: Request, subscribers: Subscribers) async -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxBodyBytes)
        } catch {
            record(request, body: "")
            return Self.reply(413, #"{"error":"Request body too large"}"#)
        }
        record(request, body: String(buffer: body))
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, parts[1] == "apps", let app = apps.first(where: { $0.id == parts[2] }) else {
            return Self.reply(404, #"{"error":"Unknown app or path"}"#)
        }
        let query = Self.query(of: request)
        guard Self.isSigned(request, query: query, body: Array(body.readableBytesView), by: app) else {
            return Self.reply(401, #"{"error":"Invalid signature"}"#)
        }
        let route = Array(parts[3...])
        switch (request.method, route.count, route.first) {
        case (.post, 1, "events"), (.post, 1, "batch_events"):
            return publish(String(buffer: body), batch: route[0] == "batch_events", subscribers: subscribers)
        case (.get, 1, "channels"):
            return channels(subscribers: subscribers)
        case (.get, 2, "channels"):
            return channel(route[1], info: query["info"] ?? "", subscribers: subscribers)
        case (.get, 3, "channels") where route[2] == "users":
            return route[1].hasPrefix("presence-")
                ? Self.reply(200, #"{"users":[]}"#) : Self.reply(400, #"{"error":"Not a presence channel"}"#)
        default:
            return Self.reply(404, #"{"error":"Unknown path"}"#)
        }
    }

    private func record(_ request: Request, body: String) {
        let headers = request.headers.map { (name: $0.name.rawName, value: $0.value) }
        received.withLock {
            $0.append(
                Received(method: request.method.rawValue, target: request.uri.description, headers: headers, body: body)
            )
        }
    }

    /// Sends each event to its channels' subscribers; `{}`.
    private func publish(_ body: String, batch: Bool, subscribers: Subscribers) -> Response {
        guard let json = JSONValue.parseIfJSON(body),
            let events = batch ? json["batch"]?.arrayValue : [json]
        else { return Self.reply(400, #"{"error":"The body is not JSON"}"#) }
        for event in events {
            let channels =
                event["channels"]?.arrayValue?.compactMap(\.stringValue)
                ?? [event["channel"]?.stringValue]
                .compactMap { $0 }
            let data = event["data"].map { $0.stringValue ?? $0.jsonString } ?? ""
            for channel in channels {
                let frame = JSONValue.orderedObject([
                    ("event", .string(event["name"]?.stringValue ?? "")), ("channel", .string(channel)),
                    ("data", .string(data)),
                ])
                for connection in subscribers(channel) { connection.send(frame) }
            }
        }
        return Self.reply(200, "{}")
    }

    private func channels(subscribers: Subscribers) -> Response {
        let occupied = Set(subscribers(nil).flatMap(\.channels)).sorted()
        let list = occupied.map { #""\#($0)":{}"# }.joined(separator: ",")
        return Self.reply(200, #"{"channels":{\#(list)}}"#)
    }

    private func channel(_ name: String, info: String, subscribers: Subscribers) -> Response {
        let count = subscribers(name).count
        let counted =
            info.split(separator: ",").contains("subscription_count") ? ",\"subscription_count\":\(count)" : ""
        return Self.reply(200, #"{"occupied":\#(count > 0)\#(counted)}"#)
    }

    /// The query's parameters as Foundation decodes them (a repeated name: the last).
    private static func query(of request: Request) -> [String: String] {
        let items = URLComponents(string: request.uri.description)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
    }

    /// Pusher's request signature: the app's key, the body's MD5, the HMAC of the method, path and sorted query.
    private static func isSigned(_ request: Request, query: [String: String], body: [UInt8], by app: App) -> Bool {
        guard query["auth_key"] == app.key, let signature = query["auth_signature"] else { return false }
        if !body.isEmpty, query["body_md5"] != APIRequestSignature.bodyMD5(body) { return false }
        return signature
            == APIRequestSignature.expectedSignature(
                method: request.method.rawValue, path: request.uri.path, secret: app.secret, parameters: query)
    }

    private static func reply(_ status: Int, _ body: String) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
