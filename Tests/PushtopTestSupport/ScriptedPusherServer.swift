import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import NIOCore
import NIOSSL
import NIOWebSocket
import PusherProtocol
import Synchronization
import WSCompression

/// A small Pusher-protocol server for tests, scripted per test: it can refuse, stay silent, send malformed
/// frames, close with any code, and records what clients send.
public final class ScriptedPusherServer: Sendable {
    /// How the server treats each new connection.
    public struct Behavior: Sendable {
        /// Send `pusher:connection_established` on connect.
        public var establish = true
        public var activityTimeout = 120
        /// Answer `pusher:ping` with `pusher:pong`.
        public var answerPings = true
        /// Answer `pusher:subscribe` with `pusher_internal:subscription_succeeded` (presence: with the roster
        /// made of the subscriber's `channel_data` plus ``presenceMembers``).
        public var acceptSubscriptions = true
        /// Other members reported on presence subscriptions.
        public var presenceMembers: [PresenceMember] = []
        /// Close every new connection at once with this code (after a `pusher:error`).
        public var refuseWith: (code: Int, reason: String)?
        /// Seconds the HTTP API (``Transport/apps``) waits before each answer: a slow upstream.
        public var apiDelay: Double = 0

        public init() {}
    }

    private struct State {
        var behavior: Behavior
        var connections: [ScriptedConnection] = []
        var paths: [String] = []
        var nextSocket = 1
    }

    private let state: Mutex<State>
    private let run = Mutex<GracefulServerRun?>(nil)
    private let api: ScriptedHTTPAPI
    public let port: Int

    private init(behavior: Behavior, port: Int, api: ScriptedHTTPAPI) {
        self.state = Mutex(State(behavior: behavior))
        self.port = port
        self.api = api
    }

    /// Every plain HTTP request that reached the server, in order (recorded when ``Transport/apps`` is set).
    public var httpRequests: [ScriptedHTTPAPI.Received] { api.received.withLock { $0 } }

    /// The open connections subscribed to `channel` (`nil`: every open connection).
    func subscribers(of channel: String?) -> [ScriptedConnection] {
        connections.filter { connection in
            connection.isOpen && (channel.map { connection.channels.contains($0) } ?? true)
        }
    }

    public var behavior: Behavior {
        get { state.withLock { $0.behavior } }
        set { state.withLock { $0.behavior = newValue } }
    }

    /// Connections in the order they arrived.
    public var connections: [ScriptedConnection] { state.withLock { $0.connections } }
    /// The request paths (with query) of every WebSocket upgrade.
    public var paths: [String] { state.withLock { $0.paths } }

    /// How the server listens: fixed for its lifetime.
    public struct Transport: Sendable {
        /// Serve `wss://` with this configuration instead of `ws://`.
        public var tls: TLSConfiguration?
        /// Accept permessage-deflate and compress frames of 256 bytes or more.
        public var perMessageDeflate = false
        /// Send WebSocket pings this often (and close a connection that does not answer).
        public var autoPing: Duration?
        /// Answer the HTTP API (``ScriptedHTTPAPI``) for these apps; none: plain requests get 404.
        public var apps: [ScriptedHTTPAPI.App]

        public init(
            tls: TLSConfiguration? = nil, perMessageDeflate: Bool = false, autoPing: Duration? = nil,
            apps: [ScriptedHTTPAPI.App] = []
        ) {
            self.tls = tls
            self.perMessageDeflate = perMessageDeflate
            self.autoPing = autoPing
            self.apps = apps
        }
    }

    /// Starts a server on 127.0.0.1 with an ephemeral port.
    public static func start(_ behavior: Behavior = Behavior(), transport: Transport = Transport()) async throws
        -> ScriptedPusherServer
    {
        let box = ServerBox()
        let ws = WebSocketServerConfiguration(
            maxFrameSize: 4 << 20, extensions: transport.perMessageDeflate ? [.perMessageDeflate()] : [],
            autoPing: transport.autoPing.map { .enabled(timePeriod: $0) } ?? .disabled)
        let plain: HTTPServerBuilder = .http1WebSocketUpgrade(configuration: .init(ws: ws)) { request, _, _ in
            guard let server = box.server else { return .dontUpgrade }
            server.state.withLock { $0.paths.append(request.path ?? "") }
            return .upgrade([:]) { inbound, outbound, _ in
                try await server.handle(inbound: inbound, outbound: outbound)
            }
        }
        let api = ScriptedHTTPAPI(apps: transport.apps)
        let router = Router()
        if !transport.apps.isEmpty { router.add(middleware: APIMiddleware(api: api, box: box)) }
        let (port, run) = await runOnLoopback(
            router, server: try transport.tls.map { try .tls(plain, tlsConfiguration: $0) } ?? plain,
            label: "scripted-server")
        let server = ScriptedPusherServer(behavior: behavior, port: port, api: api)
        box.server = server
        server.run.withLock { $0 = run }
        return server
    }

    /// Stops the server (open connections are dropped).
    public func stop() {
        for connection in connections { connection.drop() }
        run.withLock { $0?.stop() }
    }

    /// Waits until at least `count` connections have arrived and returns the `count`-th.
    public func connection(_ count: Int, timeout: Double = 10) async throws -> ScriptedConnection {
        try await waitUntil(timeout: timeout, "connection #\(count)") { self.connections.count >= count }
        return connections[count - 1]
    }

    private func handle(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (behavior, connection) = state.withLock { s -> (Behavior, ScriptedConnection) in
            let connection = ScriptedConnection(socketID: "\(s.nextSocket).\(1000 + s.nextSocket)")
            s.nextSocket += 1
            s.connections.append(connection)
            return (s.behavior, connection)
        }
        defer { connection.ended() }
        if let refuse = behavior.refuseWith {
            let error = PusherMessage(
                event: PusherEventName.error,
                data: .string(
                    JSONValue.object(["code": .number(Double(refuse.code)), "message": .string(refuse.reason)])
                        .jsonString))
            try await outbound.write(.text(error.jsonString))
            try await outbound.close(.unknown(UInt16(refuse.code)), reason: refuse.reason)
            for try await _ in inbound {}  // wait for the client's close reply
            return
        }
        if behavior.establish {
            let data = JSONValue.object([
                "socket_id": .string(connection.socketID),
                "activity_timeout": .number(Double(behavior.activityTimeout)),
            ])
            try await outbound.write(
                .text(
                    PusherMessage(event: PusherEventName.connectionEstablished, data: .string(data.jsonString))
                        .jsonString))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await command in connection.commands {
                    switch command {
                    case .text(let text): try await outbound.write(.text(text))
                    case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                    case .close(let code, let reason):
                        try await outbound.close(.unknown(UInt16(code)), reason: reason)
                        return
                    case .rawClose(let payload):
                        try await outbound.write(
                            .custom(
                                WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer(bytes: payload))))
                    case .drop:
                        throw CancellationError()
                    }
                }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: 4 << 20) {
                    guard case .text(let text) = message else { continue }
                    connection.record(text)
                    guard let frame = try? PusherMessage(decoding: text) else { continue }
                    let behavior = self.behavior
                    if frame.event == PusherEventName.ping, behavior.answerPings {
                        connection.send(PusherMessage(event: PusherEventName.pong, data: .string("{}")).jsonString)
                    }
                    if frame.event == PusherEventName.subscribe, behavior.acceptSubscriptions {
                        connection.send(Self.subscriptionSucceeded(frame, behavior: behavior))
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    private static func subscriptionSucceeded(_ frame: PusherMessage, behavior: Behavior) -> String {
        let channel = frame.dataJSON?["channel"]?.stringValue ?? ""
        var data: JSONValue = .object([:])
        if channel.hasPrefix("presence-") {
            var members = behavior.presenceMembers
            if let channelData = frame.dataJSON?["channel_data"]?.stringValue,
                let me = JSONValue.parseIfJSON(channelData), let id = me["user_id"]?.stringValue
            {
                members.append(PresenceMember(userID: id, userInfo: me["user_info"]))
            }
            var hash: [String: JSONValue] = [:]
            for m in members { hash[m.userID] = m.userInfo ?? .null }
            data = .object([
                "presence": .object([
                    "ids": .array(members.map { .string($0.userID) }), "hash": .object(hash),
                    "count": .number(Double(members.count)),
                ])
            ])
        }
        return PusherMessage(
            event: PusherEventName.subscriptionSucceeded, channel: channel, data: .string(data.jsonString)
        )
        .jsonString
    }
}

private final class ServerBox: @unchecked Sendable {
    // Set once, before the first connection can arrive.
    var server: ScriptedPusherServer?
}

/// Every plain request goes to the scripted HTTP API.
private struct APIMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let api: ScriptedHTTPAPI
    let box: ServerBox

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let box = self.box
        if let delay = box.server?.behavior.apiDelay, delay > 0 { try await Task.sleep(for: .seconds(delay)) }
        return await api.answer(request) { box.server?.subscribers(of: $0) ?? [] }
    }
}

/// One client connection to a ``ScriptedPusherServer``: what it sent, and a way to send to it.
public final class ScriptedConnection: Sendable {
    enum Command: Sendable {
        case text(String)
        case binary([UInt8])
        case close(code: Int, reason: String)
        case rawClose([UInt8])
        case drop
    }

    public let socketID: String
    let commands: AsyncStream<Command>
    private let continuation: AsyncStream<Command>.Continuation
    private let received = Mutex<[String]>([])
    private let closed = Atomic<Bool>(false)

    init(socketID: String) {
        self.socketID = socketID
        (commands, continuation) = AsyncStream.makeStream(of: Command.self)
    }

    /// Text frames the client sent, in order.
    public var frames: [String] { received.withLock { $0 } }
    /// Decoded frames the client sent.
    public var messages: [PusherMessage] { frames.compactMap { try? PusherMessage(decoding: $0) } }

    func record(_ text: String) {
        received.withLock { $0.append(text) }
    }

    func ended() { closed.store(true, ordering: .relaxed) }

    /// The connection has not ended.
    public var isOpen: Bool { !closed.load(ordering: .relaxed) }

    /// The channels the client subscribed to and has not left, in the order it subscribed.
    public var channels: [String] {
        var channels: [String] = []
        for message in messages {
            guard let channel = message.dataJSON?["channel"]?.stringValue else { continue }
            if message.event == PusherEventName.subscribe, !channels.contains(channel) { channels.append(channel) }
            if message.event == PusherEventName.unsubscribe { channels.removeAll { $0 == channel } }
        }
        return channels
    }

    public func send(_ text: String) { continuation.yield(.text(text)) }
    public func send(_ message: PusherMessage) { send(message.jsonString) }
    public func sendBinary(_ bytes: [UInt8]) { continuation.yield(.binary(bytes)) }
    public func close(code: Int, reason: String = "") { continuation.yield(.close(code: code, reason: reason)) }
    /// Sends a close frame with exactly this payload (unchecked: a 1-byte payload, a code that must not be sent, a
    /// reason that is not UTF-8), then keeps reading: the client's answer ends the connection.
    public func closeRaw(payload: [UInt8]) { continuation.yield(.rawClose(payload)) }
    /// Drops the TCP connection without a close frame.
    public func drop() { continuation.yield(.drop) }

    /// Waits for a frame from the client that matches.
    @discardableResult
    public func waitForMessage(
        timeout: Double = 10, _ what: String = "message",
        where match: @escaping @Sendable (PusherMessage) -> Bool
    ) async throws -> PusherMessage {
        try await waitUntil(timeout: timeout, what) { self.messages.contains(where: match) }
        return messages.first(where: match)!
    }
}
