import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import PusherProtocol
import PushtopConformance
import Synchronization

/// A Pusher-aware proxy in front of a real server that reproduces, one at a time, the deviations Pusher-compatible
/// servers have shipped: so a test can show that `pushtop conform` catches each, with the right case.
///
/// WebSocket connections and HTTP API requests are forwarded to the server; a ``Deviation`` rewrites what passes.
/// Webhooks can be relayed through it too (``webhookURL``), for the deviations of webhook format.
public final class PusherRewritingProxy: Sendable {
    /// What the proxy gets wrong.
    public enum Deviation: String, Sendable, CaseIterable {
        /// member_added for every connection of a user, not once per user (Reverb before PR #216).
        case memberEventsPerConnection
        /// Webhook events posted one by one, not wrapped in `{"time_ms","events":[…]}` (soketi #137).
        case unwrappedWebhooks
        /// Events published through the HTTP API never reach subscribers (sockudo #298).
        case dropTriggeredEvents
        /// Any WebSocket path is a Pusher connection (bun-pulse before PR #18).
        case acceptAnyPath
        /// Presence channel_data not bound to the signature (bun-pulse before PR #18).
        case unboundPresenceData
        /// Client events echoed to their sender.
        case echoClientEvents
        /// An API request with a stale auth_timestamp is accepted.
        case acceptStaleTimestamps
        /// socket_id exclusion ignored.
        case ignoreSocketIDExclusion
        /// The events of one batch_events request delivered in reverse order.
        case reverseBatches
        /// An event reaches only the first 100 subscribers of a channel (on this proxy).
        case deliverToFirst100
        /// A client that disconnects (close frame or dropped TCP) stays subscribed: the server never hears of it,
        /// so its channels are never vacated by a disconnect (only by pusher:unsubscribe).
        case keepDisconnectedSubscribers
    }

    public let port: Int
    private let task: Mutex<Task<Void, Never>?>

    private init(port: Int, task: Task<Void, Never>) {
        self.port = port
        self.task = Mutex(task)
    }

    /// Where the server should post webhooks for them to be relayed (rewritten) to `webhookTarget`.
    public var webhookURL: String { "http://127.0.0.1:\(port)/conform-webhook-relay" }

    /// Starts a proxy on 127.0.0.1 for the server at `upstreamPort` (app `key`/`secret`).
    public static func start(
        upstreamPort: Int, key: String, secret: String, deviation: Deviation,
        webhookTarget: String? = nil
    ) async throws -> PusherRewritingProxy {
        let rules = Rules(
            upstreamPort: upstreamPort, key: key, secret: secret, deviation: deviation,
            webhookTarget: webhookTarget)
        let router = Router()
        router.on("**", method: .get) { request, context in try await rules.forward(request, context) }
        router.on("**", method: .post) { request, context in try await rules.forward(request, context) }
        let server: HTTPServerBuilder = .http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: 4 << 20))) {
            request, _, _ in
            let path = request.path ?? "/"
            guard path.hasPrefix("/app/") || deviation == .acceptAnyPath else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                await rules.relay(uri: path, inbound: inbound, outbound: outbound)
            }
        }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: Logger(label: "rewriting-proxy", factory: { _ in SwiftLogNoOpLogHandler() }))
        let task = Task { _ = try? await app.runService() }
        var port = 0
        for await p in ports {
            port = p
            break
        }
        return PusherRewritingProxy(port: port, task: task)
    }

    public func stop() {
        task.withLock { $0?.cancel() }
    }
}

/// The rewriting itself.
final class Rules: Sendable {
    struct Member: Sendable {
        var connection: Int
        var channel: String
        var userID: String
        var info: JSONValue?
        var joined: Bool
    }

    struct State {
        var nextConnection = 0
        var members: [Member] = []
        var downstream: [Int: WebSocketOutboundWriter] = [:]
        var subscriptions: [Int: Set<String>] = [:]
        /// Per channel, the connections in the order their subscriptions succeeded.
        var subscribers: [String: [Int]] = [:]
    }

    let upstreamPort: Int
    let key: String
    let secret: String
    let deviation: PusherRewritingProxy.Deviation
    let webhookTarget: String?
    private let state = Mutex(State())

    init(
        upstreamPort: Int, key: String, secret: String, deviation: PusherRewritingProxy.Deviation,
        webhookTarget: String?
    ) {
        self.upstreamPort = upstreamPort
        self.key = key
        self.secret = secret
        self.deviation = deviation
        self.webhookTarget = webhookTarget
    }

    // MARK: - WebSocket

    func relay(uri: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        var target = uri
        if deviation == .acceptAnyPath, !uri.hasPrefix("/app/") {
            let query =
                uri.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
                ?? "protocol=7&client=js&version=8.4.0"
            target = "/app/\(key)?\(query)"
        }
        guard let upstream = try? await ProbeSocket.connect(url: "ws://127.0.0.1:\(upstreamPort)\(target)") else {
            try? await outbound.close(.unexpectedServerError, reason: "upstream unreachable")
            return
        }
        let id = state.withLock { s -> Int in
            s.nextConnection += 1
            s.downstream[s.nextConnection] = outbound
            return s.nextConnection
        }
        let socketID = SocketIDBox()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var cursor = 0
                while let (index, frame) = await upstream.waitIndexed(3600, from: cursor, { $0.direction == .received })
                {
                    cursor = index + 1
                    switch frame.kind {
                    case .text(let text):
                        if let message = frame.message, message.event == PusherEventName.connectionEstablished {
                            socketID.value.withLock { $0 = message.dataJSON?["socket_id"]?.stringValue }
                        }
                        for out in await self.fromServer(text, message: frame.message, connection: id) {
                            try? await outbound.write(.text(out))
                        }
                    case .close(let code, let reason):
                        try? await outbound.close(.init(codeNumber: code ?? 1000), reason: reason)
                        return
                    case .ended:
                        try? await outbound.close(.goingAway, reason: nil)
                        return
                    default: break
                    }
                }
            }
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: 4 << 20) {
                        switch message {
                        case .text(let text):
                            for (toServer, text) in self.fromClient(text, socketID: socketID.value.withLock { $0 }) {
                                if toServer { upstream.send(text) } else { try? await outbound.write(.text(text)) }
                            }
                        case .binary(let buffer):
                            upstream.sendFrame(opcode: .binary, bytes: Array(buffer: buffer))
                        }
                    }
                } catch {}
                if self.deviation != .keepDisconnectedSubscribers { upstream.close() }
            }
            await group.next()
            group.cancelAll()
        }
        if deviation == .keepDisconnectedSubscribers {
            // Kept open (and subscribed) upstream until the proxy stops.
            state.withLock { $0.downstream[id] = nil }
            return
        }
        upstream.drop()
        state.withLock { s in
            s.downstream[id] = nil
            s.subscriptions[id] = nil
            s.members.removeAll { $0.connection == id }
        }
    }

    /// What reaches the server (`true`) or goes back to the client (`false`) for a client frame.
    func fromClient(_ text: String, socketID: String?) -> [(Bool, String)] {
        guard let message = try? PusherMessage(decoding: text) else { return [(true, text)] }
        switch deviation {
        case .echoClientEvents where message.event.hasPrefix("client-"):
            return [(true, text), (false, text)]
        case .unboundPresenceData where message.event == PusherEventName.subscribe:
            guard let data = message.dataJSON, let channel = data["channel"]?.stringValue,
                channel.hasPrefix("presence-"),
                let auth = data["auth"]?.stringValue, let channelData = data["channel_data"]?.stringValue,
                let socketID
            else { return [(true, text)] }
            let unbound = ChannelAuthSignature.auth(key: key, secret: secret, socketID: socketID, channel: channel)
            guard auth == unbound else { return [(true, text)] }
            let bound = ChannelAuthSignature.auth(
                key: key, secret: secret, socketID: socketID, channel: channel,
                channelData: channelData)
            return [
                (
                    true,
                    PusherMessage(
                        event: message.event,
                        data: .object([
                            "channel": .string(channel), "auth": .string(bound), "channel_data": .string(channelData),
                        ])
                    ).jsonString
                )
            ]
        default:
            return [(true, text)]
        }
    }

    /// What reaches the client for a server frame (and, for per-connection member events, other clients).
    func fromServer(_ text: String, message: PusherMessage?, connection: Int) async -> [String] {
        guard let message else { return [text] }
        switch deviation {
        case .dropTriggeredEvents:
            let isProtocol =
                message.event.hasPrefix("pusher:") || message.event.hasPrefix("pusher_internal:")
                || message.event.hasPrefix("client-")
            return isProtocol ? [text] : []
        case .memberEventsPerConnection where message.event == PusherEventName.subscriptionSucceeded:
            await announceAnotherTab(message, connection: connection)
            return [text]
        case .deliverToFirst100:
            guard let channel = message.channel else { return [text] }
            if message.event == PusherEventName.subscriptionSucceeded {
                state.withLock { $0.subscribers[channel, default: []].append(connection) }
                return [text]
            }
            if message.event.hasPrefix("pusher") { return [text] }
            let rank = state.withLock { $0.subscribers[channel]?.firstIndex(of: connection) }
            return (rank ?? 0) < 100 ? [text] : []
        default:
            return [text]
        }
    }

    /// Records the member a subscription was for; when its user already had a connection on the channel, tells the
    /// channel's other connections member_added again (once per tab).
    private func announceAnotherTab(_ message: PusherMessage, connection: Int) async {
        guard let channel = message.channel, channel.hasPrefix("presence-") else { return }
        let me = message.dataJSON?["presence"]?["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let targets = state.withLock { s -> [WebSocketOutboundWriter] in
            s.subscriptions[connection, default: []].insert(channel)
            // The subscriber's own user: the one id of the roster that no other member of this proxy took.
            guard let user = me.last else { return [] }
            let otherTabs = s.members.contains {
                $0.channel == channel && $0.userID == user && $0.connection != connection
            }
            s.members.append(Member(connection: connection, channel: channel, userID: user, info: nil, joined: true))
            guard otherTabs else { return [] }
            return s.subscriptions.filter { $0.key != connection && $0.value.contains(channel) }
                .compactMap { s.downstream[$0.key] }
        }
        guard let user = me.last else { return }
        let added = PusherMessage(
            event: PusherEventName.memberAdded, channel: channel,
            data: .string(JSONValue.object(["user_id": .string(user)]).jsonString)
        ).jsonString
        for writer in targets { try? await writer.write(.text(added)) }
    }

    // MARK: - HTTP

    func forward(_ request: Request, _ context: some RequestContext) async throws -> Response {
        var buffer = try await request.body.collect(upTo: 4 << 20)
        var body = buffer.readBytes(length: buffer.readableBytes) ?? []
        let path = request.uri.path
        if path == "/conform-webhook-relay" { return try await relayWebhook(body, request) }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        // Only a request signed right otherwise is rewritten (and signed again): a wrong one stays wrong.
        let signed = validSignature(method: request.method.rawValue, path: path, query: query, body: body)
        var resign = false
        if deviation == .acceptStaleTimestamps, signed, let stamp = query["auth_timestamp"].flatMap(Int.init),
            stamp < Int(Date().timeIntervalSince1970) - 600
        {
            resign = true
        }
        if deviation == .ignoreSocketIDExclusion, signed, request.method == .post,
            let json = JSONValue.parseIfJSON(String(decoding: body, as: UTF8.self)), Self.withoutSocketIDs(json) != json
        {
            body = Array(Self.withoutSocketIDs(json).jsonString.utf8)
            resign = true
        }
        if deviation == .reverseBatches, signed, request.method == .post, path.hasSuffix("/batch_events"),
            case .object(var fields)? = JSONValue.parseIfJSON(String(decoding: body, as: UTF8.self)),
            let batch = fields["batch"]?.arrayValue
        {
            fields["batch"] = .array(batch.reversed())
            body = Array(JSONValue.object(fields).jsonString.utf8)
            resign = true
        }
        if resign {
            let bare = query.filter { !$0.key.hasPrefix("auth_") && $0.key != "body_md5" }
            query = APIRequestSignature.sign(
                method: request.method.rawValue, path: path, key: key, secret: secret,
                body: body.isEmpty ? nil : body, parameters: bare)
        }
        let queryString = query.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.value)" }
            .joined(separator: "&")
        var upstream = HTTPClientRequest(
            url: "http://127.0.0.1:\(upstreamPort)\(path)\(queryString.isEmpty ? "" : "?" + queryString)")
        upstream.method = .RAW(value: request.method.rawValue)
        if !body.isEmpty {
            upstream.headers.add(name: "Content-Type", value: "application/json")
            upstream.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(upstream, timeout: .seconds(10))
        let answer = try await response.body.collect(upTo: 4 << 20)
        return Response(
            status: .init(code: Int(response.status.code)),
            headers: [.contentType: response.headers["Content-Type"].first ?? "application/json"],
            body: .init(byteBuffer: answer))
    }

    /// Whether the request's signature and body_md5 are right for this app (whatever its timestamp).
    func validSignature(method: String, path: String, query: [String: String], body: [UInt8]) -> Bool {
        guard query["auth_key"] == key, let signature = query["auth_signature"] else { return false }
        if !body.isEmpty, query["body_md5"] != APIRequestSignature.bodyMD5(body) { return false }
        return APIRequestSignature.expectedSignature(method: method, path: path, secret: secret, parameters: query)
            == signature
    }

    /// Removes every valid `socket_id` (an invalid one is still refused by the server, as before).
    static func withoutSocketIDs(_ json: JSONValue) -> JSONValue {
        guard case .object(var fields) = json else { return json }
        if let id = fields["socket_id"]?.stringValue, id.split(separator: ".").count == 2 { fields["socket_id"] = nil }
        if let batch = fields["batch"]?.arrayValue { fields["batch"] = .array(batch.map(withoutSocketIDs)) }
        return .object(fields)
    }

    /// Posts each event of a webhook on its own, unwrapped, signed anew: soketi #137.
    private func relayWebhook(_ body: [UInt8], _ request: Request) async throws -> Response {
        guard let target = webhookTarget else { return Response(status: .notFound) }
        let events = JSONValue.parseIfJSON(String(decoding: body, as: UTF8.self))?["events"]?.arrayValue ?? []
        var worst = 200
        for event in events {
            let text = deviation == .unwrappedWebhooks ? event.jsonString : String(decoding: body, as: UTF8.self)
            var post = HTTPClientRequest(url: target)
            post.method = .POST
            post.headers.add(name: "Content-Type", value: "application/json")
            post.headers.add(name: "X-Pusher-Key", value: key)
            post.headers.add(
                name: "X-Pusher-Signature", value: ChannelAuthSignature.hmacHex(secret: secret, message: text))
            post.body = .bytes(ByteBuffer(string: text))
            let response = try await HTTPClient.shared.execute(post, timeout: .seconds(10))
            worst = max(worst, Int(response.status.code))
            if deviation != .unwrappedWebhooks { break }
        }
        return Response(status: .init(code: worst))
    }
}

/// The socket id the server gave a proxied connection, shared by its two relay tasks.
final class SocketIDBox: Sendable {
    let value = Mutex<String?>(nil)
}
