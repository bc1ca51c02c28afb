import NIOCore
import NIOEmbedded
import PusherChannels
import PusherProtocol
import Synchronization

/// A transport with no network: each socket the client opens is a ``ScriptedSocket`` the test speaks for, and time
/// is an `NIOAsyncTestingEventLoop`'s, which moves only when the test says so.
///
/// It drives the real ``PusherClient`` (its state machine, timers, subscriptions, sign-in) through the same
/// `PusherTransport` protocol the WebSocket transport implements, so the client's rules are tests that neither open
/// a socket nor sleep:
///
/// ```swift
/// let script = ScriptedTransport()
/// let client = script.makeClient()
/// await client.connect()
/// try await script.socket(1).establish(socketID: "1.1")
/// await script.advance(by: 120)   // activity timeout: the client pings
/// await script.finish()
/// ```
public final class ScriptedTransport: PusherTransport, Sendable {
    /// The loop the client runs on; its clock starts at 0 and moves with ``advance(by:)``.
    public let loop = NIOAsyncTestingEventLoop()
    private let opened = Mutex<[ScriptedSocket]>([])
    private let recorded = Mutex<[ClientEvent]>([])

    public init() {}

    /// A client on ``loop`` using this transport; what it publishes is kept in ``events``.
    public func makeClient(
        options: PusherClientOptions = PusherClientOptions(
            key: "key", host: "scripted.invalid", connection: ConnectionConfiguration(useTLS: false))
    ) -> PusherClient {
        let client = PusherClient(options: options, transport: self, eventLoop: loop, random: { 0.5 })
        client.onEventBatch { batch in self.recorded.withLock { $0 += batch } }
        return client
    }

    public func open(
        url: String, on eventLoop: any EventLoop, settings: TransportSettings, tap: FrameTap,
        deliver: @escaping @Sendable ([TransportEvent]) -> Void
    ) -> any TransportConnection {
        let socket = ScriptedSocket(url: url, loop: loop, deliver: deliver)
        opened.withLock { $0.append(socket) }
        return socket
    }

    /// The sockets opened so far, oldest first.
    public var sockets: [ScriptedSocket] { opened.withLock { $0 } }

    /// The `number`th socket opened (1-based), once the client has opened it.
    public func socket(_ number: Int) async throws -> ScriptedSocket {
        await settle()
        let all = sockets
        guard all.count >= number else { throw ScriptError("socket \(number) was not opened (\(all.count) were)") }
        return all[number - 1]
    }

    /// Everything the client published so far.
    public var events: [ClientEvent] { recorded.withLock { $0 } }

    /// Runs what is due on the loop now (work the client queued), without moving time.
    public func settle() async {
        await loop.run()
    }

    /// Ends the script: the client's timers still pending are dropped. Call it at the end of every test (a testing
    /// loop must not be freed with tasks scheduled).
    public func finish() async {
        await loop.shutdownGracefully()
    }

    /// Moves the loop's clock on by `seconds`, firing the client's timers that fall due on the way.
    public func advance(by seconds: Double) async {
        await loop.advanceTime(by: .nanoseconds(Int64(seconds * 1e9)))
    }
}

/// One socket a ``ScriptedTransport`` opened: what the client sent on it, and the server's side, played by the test.
public final class ScriptedSocket: TransportConnection, Sendable {
    /// The URL the client connected to.
    public let url: String
    private let loop: NIOAsyncTestingEventLoop
    private let deliver: @Sendable ([TransportEvent]) -> Void
    private let state = Mutex<(sent: [String], closed: (code: Int, reason: String)?)>(([], nil))

    init(url: String, loop: NIOAsyncTestingEventLoop, deliver: @escaping @Sendable ([TransportEvent]) -> Void) {
        self.url = url
        self.loop = loop
        self.deliver = deliver
    }

    public func send(_ text: String) {
        state.withLock { $0.sent.append(text) }
    }

    public func close(code: Int, reason: String) {
        state.withLock { $0.closed = (code, reason) }
    }

    /// The text frames the client sent, in order.
    public var sent: [String] { state.withLock { $0.sent } }

    /// The `event` of each frame the client sent, in order.
    public var sentEvents: [String] { sent.compactMap { try? PusherMessage(decoding: $0).event } }

    /// The channels the client sent `pusher:subscribe` for, in order.
    public var subscribedChannels: [String] {
        sent.compactMap { try? PusherMessage(decoding: $0) }.filter { $0.event == PusherEventName.subscribe }
            .compactMap { $0.dataJSON?["channel"]?.stringValue }
    }

    /// The close code the client closed this socket with, if it did.
    public var closedWith: Int? { state.withLock { $0.closed?.code } }

    /// Hands the client one read burst and waits until it has handled it.
    public func receive(_ events: [TransportEvent]) async {
        let deliver = self.deliver
        _ = try? await loop.executeInContext { deliver(events) }
        await loop.run()
    }

    /// The server's frames, as one read burst.
    public func receive(frames: String...) async throws {
        var events: [TransportEvent] = []
        for frame in frames { events.append(.message(try PusherMessage(decoding: frame), raw: nil)) }
        await receive(events)
    }

    /// The WebSocket handshake and `pusher:connection_established`.
    public func establish(socketID: String = "1.1", activityTimeout: Int = 120) async throws {
        let data = #"{\"socket_id\":\"\#(socketID)\",\"activity_timeout\":\#(activityTimeout)}"#
        await receive([.opened])
        try await receive(frames: #"{"event":"pusher:connection_established","data":"\#(data)"}"#)
    }

    /// The server acknowledges the subscription to `channel`.
    public func acknowledge(_ channel: String) async throws {
        try await receive(
            frames: #"{"event":"pusher_internal:subscription_succeeded","channel":"\#(channel)","data":"{}"}"#)
    }

    /// The server closes the socket with `code` (`nil`: the connection failed without a close frame).
    public func serverCloses(code: Int?, reason: String = "") async {
        await receive([.closed(code: code, reason: reason)])
    }
}

/// A script that could not go on (a socket the client did not open).
public struct ScriptError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
