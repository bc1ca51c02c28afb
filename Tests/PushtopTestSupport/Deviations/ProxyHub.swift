import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import PusherProtocol
import PushtopConformance
import Synchronization

/// One proxied connection as a rewrite sees it.
final class ProxyLink: Sendable {
    let id: Int
    let hub: ProxyHub
    private struct State {
        var socketID: String?
        var channels: Set<String> = []
        var pings = 0
        var lastSentWasSubscribe = false
        var notes: [String: String] = [:]
    }
    private let state = Mutex(State())

    init(id: Int, hub: ProxyHub) {
        self.id = id
        self.hub = hub
    }

    var socketID: String? { state.withLock { $0.socketID } }
    var channels: Set<String> { state.withLock { $0.channels } }
    /// Counts this connection's `pusher:ping`s: the number so far.
    func countPing() -> Int {
        state.withLock { s in
            s.pings += 1; return s.pings
        }
    }
    /// A note a rewrite keeps for this connection.
    func note(_ key: String) -> String? { state.withLock { $0.notes[key] } }
    func setNote(_ key: String, _ value: String?) { state.withLock { $0.notes[key] = value } }

    fileprivate func sawFromServer(_ message: PusherMessage) {
        state.withLock { s in
            if message.event == PusherEventName.connectionEstablished {
                s.socketID = message.dataJSON?["socket_id"]?.stringValue
            }
            if message.event == PusherEventName.subscriptionSucceeded, let channel = message.channel {
                s.channels.insert(channel)
            }
        }
    }

    fileprivate func sawFromClient(_ message: PusherMessage) {
        state.withLock { s in
            s.lastSentWasSubscribe = message.event == PusherEventName.subscribe
            if message.event == PusherEventName.unsubscribe, let channel = message.dataJSON?["channel"]?.stringValue {
                s.channels.remove(channel)
            }
        }
    }

    fileprivate var lastSentWasSubscribe: Bool { state.withLock { $0.lastSentWasSubscribe } }
}

/// The proxy's shared state and its forwarding.
public final class ProxyHub: Sendable {
    private let upstream: Atomic<Int>
    var upstreamPort: Int { upstream.load(ordering: .relaxed) }
    let key: String
    let secret: String
    let rewrite: ProxyRewrite
    let webhookTarget: String?
    private struct State {
        var next = 0
        var down = false
        var links: [Int: (ProxyLink, WebSocketOutboundWriter)] = [:]
        var shared: [String: String] = [:]
        var kept: [ProbeSocket] = []
    }
    private let state = Mutex(State())

    init(upstreamPort: Int, key: String, secret: String, rewrite: ProxyRewrite, webhookTarget: String?) {
        self.upstream = Atomic(upstreamPort)
        self.key = key
        self.secret = secret
        self.rewrite = rewrite
        self.webhookTarget = webhookTarget
    }

    var isDown: Bool { state.withLock { $0.down } }

    /// Points the proxy at another server port (one started after the proxy, to post its webhooks through it).
    public func setUpstream(_ port: Int) { upstream.store(port, ordering: .relaxed) }

    /// The connections open through this proxy.
    var links: [ProxyLink] { state.withLock { s in s.links.values.map(\.0) } }

    /// Closes every connection (the server goes on).
    func closeAll(code: Int) {
        let writers = state.withLock { s in s.links.values.map(\.1) }
        Task { for writer in writers { try? await writer.close(.init(codeNumber: code), reason: "closed") } }
    }

    /// A value shared by every connection of the proxy (for rewrites that remember across connections).
    func shared(_ key: String, _ update: (inout String?) -> Void) -> String? {
        state.withLock { s in
            var value = s.shared[key]
            update(&value)
            s.shared[key] = value
            return value
        }
    }

    /// Stops serving: closes every connection; upgrades and HTTP requests are refused from now on.
    func goDown() {
        let (writers, kept) = state.withLock { s -> ([WebSocketOutboundWriter], [ProbeSocket]) in
            s.down = true
            defer { s.kept = [] }
            return (s.links.values.map(\.1), s.kept)
        }
        for socket in kept { socket.drop() }
        Task { for writer in writers { try? await writer.close(.unexpectedServerError, reason: "stopped") } }
    }

    // MARK: - WebSocket

    func relay(upstreamURI: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        guard let upstream = try? await ProbeSocket.connect(url: "ws://127.0.0.1:\(upstreamPort)\(upstreamURI)") else {
            try? await outbound.close(.unexpectedServerError, reason: "upstream unreachable")
            return
        }
        let link = state.withLock { s -> ProxyLink in
            s.next += 1
            let link = ProxyLink(id: s.next, hub: self)
            s.links[s.next] = (link, outbound)
            return link
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.serverToClient(upstream, link, outbound) }
            group.addTask { await self.clientToServer(inbound, upstream, link, outbound) }
            await group.next()
            group.cancelAll()
        }
        if rewrite.keepsDisconnected, !upstream.hasEnded {
            let kept = state.withLock { s -> Bool in
                s.links.removeValue(forKey: link.id)
                if !s.down { s.kept.append(upstream) }
                return !s.down
            }
            if !kept { upstream.drop() }
            return
        }
        upstream.drop()
        await perform(rewrite.ended(link), link, upstream, outbound)
        _ = state.withLock { $0.links.removeValue(forKey: link.id) }
    }

    /// The server's frames, rewritten, to the client; the server's close or end closes the client.
    private func serverToClient(_ upstream: ProbeSocket, _ link: ProxyLink, _ outbound: WebSocketOutboundWriter) async {
        var cursor = 0
        while let (index, frame) = await upstream.waitIndexed(3600, from: cursor, { $0.direction == .received }) {
            cursor = index + 1
            switch frame.kind {
            case .text(let text):
                if let message = frame.message { link.sawFromServer(message) }
                await perform(rewrite.fromServer(text, frame.message, link), link, upstream, outbound)
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

    /// The client's frames to the server: whole text messages rewritten, the rest (binary, fragments, text that is
    /// not UTF-8) as they came unless the rewrite drops them or they stop the server.
    private func clientToServer(
        _ inbound: WebSocketInboundStream, _ upstream: ProbeSocket, _ link: ProxyLink,
        _ outbound: WebSocketOutboundWriter
    ) async {
        var parts: [UInt8] = []
        var partsAreText = false
        do {
            for try await frame in inbound {
                if rewrite.stopsServer(frame, link) {
                    goDown()
                    return
                }
                let bytes = Array(buffer: frame.data)
                switch frame.opcode {
                case .text where frame.fin:
                    guard let text = String(validating: bytes, as: UTF8.self) else {
                        upstream.sendFrame(opcode: .text, bytes: bytes)
                        continue
                    }
                    let message = try? PusherMessage(decoding: text)
                    let hops = rewrite.fromClient(text, message, link)
                    if let message { link.sawFromClient(message) }
                    await perform(hops, link, upstream, outbound)
                case .text, .binary:
                    partsAreText = frame.opcode == .text
                    parts = frame.fin ? [] : bytes
                    if frame.fin || rewrite.passFragment(frame.opcode) {
                        upstream.sendFrame(
                            opcode: frame.opcode == .text ? .text : .binary, bytes: bytes, fin: frame.fin)
                    }
                case .continuation:
                    parts += bytes
                    if rewrite.passFragment(.continuation) {
                        upstream.sendFrame(opcode: .continuation, bytes: bytes, fin: frame.fin)
                    }
                    if frame.fin, partsAreText,
                        let message = try? PusherMessage(decoding: String(decoding: parts, as: UTF8.self))
                    {
                        link.sawFromClient(message)
                    }
                }
            }
            stopIfSubscribeWasLast(link)
            if !rewrite.keepsDisconnected { upstream.close() }
        } catch {
            stopIfSubscribeWasLast(link)
            if !rewrite.keepsDisconnected { upstream.drop() }
        }
    }

    /// The client's side ended (a drop or a close) right after a `pusher:subscribe`: decided here, as soon as the
    /// client's stream ends, not after the upstream's end, which races it.
    private func stopIfSubscribeWasLast(_ link: ProxyLink) {
        if rewrite.pendingSubscribeDropStopsServer, link.lastSentWasSubscribe { goDown() }
    }

    private func perform(_ hops: [Hop], _ link: ProxyLink, _ upstream: ProbeSocket, _ outbound: WebSocketOutboundWriter)
        async
    {
        for hop in hops {
            switch hop {
            case .server(let text): upstream.send(text)
            case .client(let text): try? await outbound.write(.text(text))
            case .clientLater(let text, let seconds):
                Task {
                    try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                    try? await outbound.write(.text(text))
                }
            case .others(let channel, let text):
                let writers = state.withLock { s in
                    s.links.values.filter { $0.0.id != link.id && $0.0.channels.contains(channel) }.map(\.1)
                }
                for writer in writers { try? await writer.write(.text(text)) }
            case .notSubscribed(let channel, let text):
                let writers = state.withLock { s in
                    s.links.values.filter { $0.0.id != link.id && !$0.0.channels.contains(channel) }.map(\.1)
                }
                for writer in writers { try? await writer.write(.text(text)) }
            case .close(let code):
                try? await outbound.close(.init(codeNumber: code), reason: "deviation")
                upstream.drop()
            }
        }
    }

    // MARK: - HTTP

    /// Where the server posts the webhooks the proxy rewrites and relays (``FaultProxy/webhookURL``).
    static let webhookRelayPath = "/deviation-webhook-relay"

    func forward(_ request: Request, _ context: some RequestContext) async throws -> Response {
        if isDown { return Response(status: .serviceUnavailable) }
        var buffer = try await request.body.collect(upTo: 4 << 20)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        if request.uri.path == Self.webhookRelayPath { return try await relayWebhook(bytes) }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        let original = ProxiedRequest(
            method: request.method.rawValue, path: request.uri.path, query: query,
            body: String(decoding: bytes, as: UTF8.self))
        var checked = original
        checked.signedRight = signedRight(original, bytes)
        var call = checked
        let sign = rewrite.request(&call, self)
        let changed = call.path != original.path || call.body != original.body || call.query != original.query
        let stamp = original.query["auth_timestamp"].flatMap(Double.init) ?? 0
        let fresh = abs(stamp - Date().timeIntervalSince1970) < 600
        if sign || (changed && checked.signedRight && fresh) {
            let bare = call.query.filter { !$0.key.hasPrefix("auth_") && $0.key != "body_md5" }
            call.query = APIRequestSignature.sign(
                method: call.method, path: call.path, key: key, secret: secret,
                body: call.body.isEmpty ? nil : Array(call.body.utf8), parameters: bare)
        }
        let queryString = call.query.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.value)" }
            .joined(separator: "&")
        var upstream = HTTPClientRequest(
            url: "http://127.0.0.1:\(upstreamPort)\(call.path)\(queryString.isEmpty ? "" : "?" + queryString)")
        upstream.method = .RAW(value: call.method)
        if !call.body.isEmpty {
            upstream.headers.add(name: "Content-Type", value: "application/json")
            upstream.body = .bytes(ByteBuffer(string: call.body))
        }
        let response = try await HTTPClient.shared.execute(upstream, timeout: .seconds(10))
        let answer = String(buffer: try await response.body.collect(upTo: 4 << 20))
        let (status, body) = rewrite.answer(checked, Int(response.status.code), answer, self)
        return Response(
            status: .init(code: status),
            headers: [.contentType: response.headers["Content-Type"].first ?? "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// Whether the request's signature and body_md5 are right for this app (whatever its timestamp).
    func signedRight(_ call: ProxiedRequest, _ body: [UInt8]) -> Bool {
        guard call.query["auth_key"] == key, let signature = call.query["auth_signature"] else { return false }
        if !body.isEmpty, call.query["body_md5"] != APIRequestSignature.bodyMD5(body) { return false }
        return APIRequestSignature.expectedSignature(
            method: call.method, path: call.path, secret: secret, parameters: call.query) == signature
    }

    /// Posts the rewritten bodies of one webhook, each signed anew.
    private func relayWebhook(_ body: [UInt8]) async throws -> Response {
        guard let target = webhookTarget else { return Response(status: .notFound) }
        var worst = 200
        for hook in rewrite.webhook(String(decoding: body, as: UTF8.self)) {
            var post = HTTPClientRequest(url: target)
            post.method = .POST
            post.headers.add(name: "Content-Type", value: hook.contentType)
            post.headers.add(name: "X-Pusher-Key", value: key)
            post.headers.add(
                name: "X-Pusher-Signature",
                value: ChannelAuthSignature.hmacHex(secret: hook.secret ?? secret, message: hook.body))
            post.body = .bytes(ByteBuffer(string: hook.body))
            let response = try await HTTPClient.shared.execute(post, timeout: .seconds(10))
            worst = max(worst, Int(response.status.code))
        }
        return Response(status: .init(code: worst))
    }
}
