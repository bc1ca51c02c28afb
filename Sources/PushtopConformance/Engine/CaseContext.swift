import AsyncHTTPClient
import Foundation
import NIOCore
import PusherChannels
import PusherProtocol
import Synchronization

/// What a case works with: the target, its own channel names, sockets it opens (closed after it), the HTTP API
/// signed in any way, the webhook listener, and the features the server was found to have.
public final class CaseContext: Sendable {
    public let target: ConformanceTarget
    /// Every channel of this case starts with it (after the kind's prefix): `conform-RUN-CASE-`.
    public let prefix: String
    public let webhooks: WebhookListener?
    let features: FeatureProbe
    let traffic: TrafficCounter
    let httpClient: HTTPClient
    private let sockets = Mutex<[ProbeSocket]>([])
    private let counter = Atomic<Int>(0)

    init(
        target: ConformanceTarget, prefix: String, webhooks: WebhookListener?, features: FeatureProbe,
        traffic: TrafficCounter, httpClient: HTTPClient
    ) {
        self.target = target
        self.prefix = prefix
        self.webhooks = webhooks
        self.features = features
        self.traffic = traffic
        self.httpClient = httpClient
    }

    /// Seconds to wait for something that should come at once.
    public var patience: Double { target.patience }

    /// A channel of this case: `kind` (`""`, `private-`, `presence-`, `private-encrypted-`, `cache-`…) + prefix +
    /// `name`.
    public func channel(_ kind: String = "", _ name: String = "c") -> String {
        kind + prefix + name
    }

    /// A fresh user id for this case.
    public func user(_ name: String = "u") -> String {
        "\(prefix)\(name)\(counter.wrappingAdd(1, ordering: .relaxed).newValue)"
    }

    // MARK: - Connections

    /// The WebSocket URL of a node: `/app/KEY?protocol=7&client=pushtop-conform&version=…` unless told otherwise.
    public func url(node: Int = 0, path: String? = nil, query: String? = nil) -> String {
        let base = target.nodes[node].webSocketBase
        let path = path ?? "/app/\(target.key)"
        let query = query ?? "protocol=7&client=pushtop-conform&version=\(ConformanceSuite.version)&flash=false"
        return query.isEmpty ? base + path : "\(base)\(path)?\(query)"
    }

    /// Opens a WebSocket without waiting for anything Pusher-specific.
    public func open(node: Int = 0, path: String? = nil, query: String? = nil, headers: [(String, String)] = [])
        async throws(ProbeError) -> ProbeSocket
    {
        let socket = try await ProbeSocket.connect(
            url: url(node: node, path: path, query: query), headers: headers, timeout: max(patience, 5),
            caFile: target.caFile)
        sockets.withLock { $0.append(socket) }
        return socket
    }

    /// Opens a connection and waits for `pusher:connection_established`; anything else fails the case.
    public func connect(node: Int = 0, query: String? = nil) async throws -> ProbeConnection {
        let socket: ProbeSocket
        do {
            socket = try await open(node: node, query: query)
        } catch {
            throw CaseFailure(expected: "a WebSocket connection to \(url(node: node, query: query))", got: "\(error)")
        }
        guard let frame = await socket.waitFor(patience, { $0.message?.event == "pusher:connection_established" })
        else {
            throw CaseFailure(
                expected: "pusher:connection_established within \(patience) s",
                got: socket.received(), evidence: evidence())
        }
        let data = frame.message?.dataJSON
        guard let socketID = data?["socket_id"]?.stringValue else {
            throw CaseFailure(expected: "connection_established data with a socket_id", got: frame.line())
        }
        return ProbeConnection(
            socket: socket, socketID: socketID,
            activityTimeout: data?["activity_timeout"]?.numberValue, node: node)
    }

    // MARK: - Subscriptions

    /// The `auth` of a private or presence subscription, signed with the app secret.
    public func auth(_ connection: ProbeConnection, _ channel: String, channelData: String? = nil) -> String {
        ChannelAuthSignature.auth(
            key: target.key, secret: target.secret, socketID: connection.socketID,
            channel: channel, channelData: channelData)
    }

    /// A presence `channel_data`: `{"user_id":…,"user_info":…}`.
    public func channelData(user: String, info: JSONValue? = nil) -> String {
        var fields: [(String, JSONValue)] = [("user_id", .string(user))]
        if let info { fields.append(("user_info", info)) }
        return JSONValue.orderedObject(fields)
    }

    /// Sends `pusher:subscribe` (signed for private and presence channels unless `auth` is given) and waits for its
    /// answer.
    public func subscribe(
        _ connection: ProbeConnection, _ channel: String, user: String? = nil, info: JSONValue? = nil,
        auth: String? = nil, channelData: String? = nil, wait: Double? = nil
    ) async -> SubscribeAnswer {
        var data: [(String, JSONValue)] = [("channel", .string(channel))]
        let isPresence = channel.hasPrefix("presence-")
        let channelData = channelData ?? (isPresence ? self.channelData(user: user ?? self.user(), info: info) : nil)
        if let auth {
            data.append(("auth", .string(auth)))
        } else if channel.hasPrefix("private-") || isPresence {
            data.append(("auth", .string(self.auth(connection, channel, channelData: channelData))))
        }
        if let channelData { data.append(("channel_data", .string(channelData))) }
        let from = connection.socket.count
        connection.socket.send(
            JSONValue.orderedObject([
                ("event", "pusher:subscribe"), ("data", .object(Dictionary(uniqueKeysWithValues: data))),
            ]))
        return await answer(to: connection, channel: channel, from: from, wait: wait ?? patience)
    }

    /// Waits for the answer to a subscription sent at index `from`.
    func answer(to connection: ProbeConnection, channel: String, from: Int, wait: Double) async -> SubscribeAnswer {
        let frame = await connection.socket.waitFor(wait, from: from) { frame in
            if frame.isEnd { return true }
            guard frame.direction == .received, let message = frame.message else { return false }
            if message.event == "pusher_internal:subscription_succeeded" { return message.channel == channel }
            if message.event == "pusher:subscription_error" {
                return message.channel == nil || message.channel == channel
            }
            return message.event == "pusher:error"
        }
        guard let frame else { return .silent }
        if frame.message?.event == "pusher_internal:subscription_succeeded" { return .succeeded(frame) }
        return .refused(frame)
    }

    /// Subscribes and fails the case unless the server says `subscription_succeeded`.
    @discardableResult
    public func mustSubscribe(
        _ connection: ProbeConnection, _ channel: String, user: String? = nil, info: JSONValue? = nil
    ) async throws -> ProbeFrame {
        switch await subscribe(connection, channel, user: user, info: info) {
        case .succeeded(let frame): return frame
        case .refused(let frame):
            throw CaseFailure(
                expected: "subscription_succeeded for \(channel)", got: SubscribeAnswer.describe(frame),
                evidence: evidence())
        case .silent:
            throw CaseFailure(
                expected: "subscription_succeeded for \(channel) within \(patience) s", got: "no answer",
                evidence: evidence())
        }
    }

    /// Sends `pusher:unsubscribe`.
    public func unsubscribe(_ connection: ProbeConnection, _ channel: String) {
        connection.socket.send(
            JSONValue.orderedObject([
                ("event", "pusher:unsubscribe"),
                ("data", .object(["channel": .string(channel)])),
            ]))
    }

    /// Sends a client event on `channel`.
    public func sendClientEvent(_ connection: ProbeConnection, _ channel: String, event: String, data: JSONValue) {
        connection.socket.send(event: event, channel: channel, data: data)
    }

    /// Sends `pusher:ping` and waits for the pong: every frame the connection sent before has been handled.
    @discardableResult
    public func roundTrip(_ connection: ProbeConnection) async -> Bool {
        let from = connection.socket.count
        connection.socket.send(event: "pusher:ping", data: .object([:]))
        return await connection.socket.waitFor(patience, from: from) { $0.message?.event == "pusher:pong" } != nil
    }

    // MARK: - Waiting for frames

    /// The first event `event` on `channel` that `connection` received (at or after `from`), within `timeout`.
    public func event(
        _ connection: ProbeConnection, _ event: String, channel: String? = nil, from: Int = 0, timeout: Double? = nil
    ) async -> PusherMessage? {
        await connection.socket.waitFor(timeout ?? patience, from: from) { frame in
            guard frame.direction == .received, let message = frame.message else { return false }
            return message.event == event && (channel == nil || message.channel == channel)
        }?.message
    }

    /// Like ``event(_:_:channel:from:timeout:)``, failing the case when none came.
    @discardableResult
    public func mustReceive(
        _ connection: ProbeConnection, _ event: String, channel: String? = nil, from: Int = 0, timeout: Double? = nil
    ) async throws -> PusherMessage {
        if let message = await self.event(connection, event, channel: channel, from: from, timeout: timeout) {
            return message
        }
        let came = connection.socket.received(from: from)
        throw CaseFailure(
            expected: "\(event)\(channel.map { " on \($0)" } ?? "") within \(timeout ?? patience) s",
            got: came == "nothing" ? "none" : "none of it; received: \(came)", evidence: evidence())
    }

    /// Messages named `event` (on `channel`) received so far.
    public func received(_ connection: ProbeConnection, _ event: String, channel: String? = nil) -> [PusherMessage] {
        connection.socket.frames.compactMap { frame in
            guard frame.direction == .received, let message = frame.message, message.event == event,
                channel == nil || message.channel == channel
            else { return nil }
            return message
        }
    }

    /// Publishes a marker on `channel` through the HTTP API and waits until `connections` have it: whatever the server
    /// sent them before (through the same node) has arrived.
    public func barrier(_ connections: [ProbeConnection], channel: String, node: Int = 0) async throws {
        let marker = "conform-barrier-\(counter.wrappingAdd(1, ordering: .relaxed).newValue)"
        let answer = await trigger(node: node, channels: [channel], event: marker, data: "{}")
        guard answer.status == 200 else {
            throw CaseFailure(expected: "HTTP 200 for a marker event", got: answer.description)
        }
        for connection in connections {
            try await mustReceive(connection, marker, channel: channel)
        }
    }

    /// A short quiet period in which nothing more should arrive.
    public func settle(_ seconds: Double = 0.4) async {
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    }

    // MARK: - HTTP API

    /// `POST /events`.
    public func trigger(
        node: Int = 0, channels: [String], event: String, data: String, socketID: String? = nil, info: String? = nil,
        signing: APISigning = .valid
    ) async -> APIAnswer {
        var body: [(String, JSONValue)] = [
            ("name", .string(event)), ("data", .string(data)),
            ("channels", .array(channels.map { .string($0) })),
        ]
        if let socketID { body.append(("socket_id", .string(socketID))) }
        if let info { body.append(("info", .string(info))) }
        return await request(
            node: node, method: "POST", path: "/events", body: JSONValue.orderedObject(body),
            signing: signing)
    }

    /// A request to `/apps/ID` + `path`, signed as asked; any status is returned, never thrown.
    public func request(
        node: Int = 0, method: String, path: String, query: [String: String] = [:], body: String? = nil,
        signing: APISigning = .valid, appID: String? = nil
    ) async -> APIAnswer {
        let api = target.nodes[node].api
        let fullPath = "/apps/\(appID ?? target.appID)\(path)"
        let bytes = body.map { Array($0.utf8) }
        var parameters: [String: String]
        switch signing {
        case .unsigned:
            parameters = query
        case .valid, .badSignature:
            parameters = APIRequestSignature.sign(
                method: method, path: fullPath, key: target.key, secret: target.secret,
                body: bytes, parameters: query)
        case .wrongSecret:
            parameters = APIRequestSignature.sign(
                method: method, path: fullPath, key: target.key,
                secret: target.secret + "-wrong", body: bytes, parameters: query)
        case .wrongKey:
            parameters = APIRequestSignature.sign(
                method: method, path: fullPath, key: "conform-no-such-key",
                secret: target.secret, body: bytes, parameters: query)
        case .badBodyMD5:
            parameters = APIRequestSignature.sign(
                method: method, path: fullPath, key: target.key, secret: target.secret,
                body: (bytes ?? []) + Array(" ".utf8), parameters: query)
        case .timestampOffset(let offset):
            parameters = APIRequestSignature.sign(
                method: method, path: fullPath, key: target.key, secret: target.secret, body: bytes, parameters: query,
                timestamp: Int(Date().timeIntervalSince1970) + offset)
        }
        if signing == .badSignature, let signature = parameters["auth_signature"] {
            parameters["auth_signature"] = (signature.first == "0" ? "1" : "0") + signature.dropFirst()
        }
        let queryString = PusherAPIClient.queryString(parameters)
        var request = HTTPClientRequest(url: "\(api.baseURL)\(fullPath)\(queryString.isEmpty ? "" : "?" + queryString)")
        request.method = .RAW(value: method)
        request.headers.add(name: "User-Agent", value: "pushtop-conform/\(ConformanceSuite.version)")
        if let bytes {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: bytes))
        }
        if method == "POST", path.hasSuffix("events") { traffic.add(1) }
        do {
            let response = try await httpClient.execute(request, timeout: .seconds(Int64(max(patience, 5) * 2)))
            let text = String(buffer: try await response.body.collect(upTo: 4 << 20))
            return APIAnswer(status: Int(response.status.code), body: text)
        } catch {
            return APIAnswer(status: 0, body: "request failed: \(error)")
        }
    }

    // MARK: - Features and evidence

    /// Whether the server has `feature`, found out once per run by `detect` (which returns why not, or `nil`).
    public func supports(_ feature: ServerFeature) async -> String? {
        await features.missing(feature, context: self)
    }

    /// The frames of every socket this case opened, for a failure's evidence.
    public func evidence(limit: Int = 14) -> [String] {
        let sockets = self.sockets.withLock { $0 }
        var lines: [String] = []
        for (index, socket) in sockets.enumerated() {
            let frames = socket.frames
            lines.append("socket \(index + 1) (\(socket.url)):")
            if frames.count > limit { lines.append("   … \(frames.count - limit) earlier frames") }
            lines += frames.suffix(limit).map { "   " + $0.line(limit: 240) }
            // The last entry says how the wait ended when the connection did not: still open (a timeout).
            if !socket.hasEnded {
                lines.append("   .. \(String(format: "%6.3f", socket.age))s [still open: no close frame, not ended]")
            }
        }
        return lines
    }

    /// Counts what every socket the case opened received, then closes them. Counted first, all of them: closing one
    /// member of a presence channel sends `member_removed` to the others, and counted as they close, the count would
    /// depend on how fast those arrive (the at-most of a case with many members allows for them).
    func finish() async {
        let sockets = self.sockets.withLock { s -> [ProbeSocket] in
            defer { s = [] }
            return s
        }
        traffic.add(sockets.reduce(0) { $0 + $1.frames.filter(\.isBillable).count })
        for socket in sockets {
            socket.close()
            socket.drop()
        }
    }
}
