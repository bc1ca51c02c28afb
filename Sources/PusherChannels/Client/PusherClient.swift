import Foundation
import Logging
import PusherProtocol

import protocol NIOCore.EventLoop
import struct NIOCore.NIODeadline
import struct NIOCore.Scheduled
import struct NIOCore.TimeAmount
import class NIOPosix.MultiThreadedEventLoopGroup

/// A Pusher Channels client (protocol 7): connection, channels, presence, encrypted channels, bindings.
///
/// Everything that happens is published as `ClientEvent` values: take them in batches with
/// ``eventBatches(bufferSize:)`` (cheapest, for busy consumers such as a dashboard) or one by one with
/// ``events(bufferSize:)``. Each call makes a new consumer with its own bounded buffer.
///
/// ```swift
/// let client = PusherClient(options: .init(key: "app-key", cluster: "eu"))
/// let events = client.events()
/// await client.connect()
/// try await client.subscribe("my-channel")
/// for await event in events { print(event) }
/// ```
///
/// The actor runs on one SwiftNIO event loop (``eventLoop``), the same one its WebSocket connection reads on:
/// a read burst is decoded and handled there in one go, without a thread hop. A consumer isolated to the same
/// loop (an actor whose `unownedExecutor` is ``eventLoop``'s executor) shares that thread too.
public actor PusherClient {
    /// This library's version (sent to the server in the connection URL).
    public static let version = "0.1.0"

    /// The options the client was created with.
    public nonisolated let options: PusherClientOptions
    let transport: any PusherTransport
    let logger: Logger
    var machine: ConnectionStateMachine
    var connection: (any TransportConnection)?
    var timers: [ConnectionTimer: (token: Int, task: Scheduled<Void>)] = [:]
    var timerToken = 0
    var channelOrder: [String] = []
    var channels: [String: ChannelSubscription] = [:]
    var bindings = EventBindings()
    nonisolated let broadcaster = EventBroadcaster()
    nonisolated let tap = FrameTap()
    /// Sockets opened and not yet reported closed, by attempt.
    var liveSockets: Set<Int> = []
    var closeWaiters: [(id: Int, attempt: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    var closeWaiterID = 0
    var pending: [ClientEvent] = []
    /// The array of the last published batch, emptied, so that the next batch reuses its storage.
    var spareBatch: [ClientEvent] = []
    var user = UserSession()
    /// The event loop's clock when the client was made (``now()`` counts from it).
    let start: NIODeadline
    /// Frames that arrived for channels this client does not hold (for example an event in flight when an
    /// unsubscribe left): counted, shown in the frame tap, never delivered as channel events.
    public internal(set) var framesForUnknownChannels = 0

    /// The event loop this client and its connection run on.
    public nonisolated let eventLoop: any EventLoop

    /// Runs the actor on ``eventLoop``, so that the transport hands read bursts over synchronously.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        eventLoop.executor.asUnownedSerialExecutor()
    }

    /// - Parameters:
    ///   - options: the app key, host, connection settings and authorizers.
    ///   - transport: the WebSocket transport (tests pass a scripted one); ``WebSocketTransport`` by default.
    ///   - eventLoop: the loop the client and its connection run on; one of NIO's shared loops by default.
    ///   - random: a source of numbers in 0...1 for the reconnection jitter (tests pass a fixed one).
    public init(
        options: PusherClientOptions, transport: (any PusherTransport)? = nil, eventLoop: (any EventLoop)? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.options = options
        self.logger = options.logger
        self.transport = transport ?? WebSocketTransport(logger: options.logger)
        let loop = eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        self.eventLoop = loop
        self.start = loop.now
        self.machine = ConnectionStateMachine(configuration: options.connection, random: random)
    }

    // MARK: - State

    /// Where the connection stands now.
    public var state: ConnectionState { machine.state }
    /// The socket id the server gave the current connection; `nil` while not connected.
    public var socketID: String? { machine.socketID }
    /// Why the connection failed, when its state is `failed`.
    public var failureReason: String? { machine.failureReason }

    /// Channels the client subscribes to, in the order they were asked for.
    public var channelNames: [String] { channelOrder }

    /// Where the subscription to `channel` stands; `nil` when the client does not subscribe to it.
    public func subscriptionState(_ channel: String) -> SubscriptionState? {
        channels[channel]?.state
    }

    /// The members of a presence channel.
    public func members(of channel: String) -> PresenceRoster? {
        channels[channel]?.roster
    }

    // MARK: - Connecting

    /// Connects (or reconnects after `disconnect` or `failed`); does nothing while connecting or connected.
    public func connect() {
        perform(machine.handle(.connectRequested, now: now()))
        flush()
    }

    /// Closes the connection; the client stays disconnected until ``connect()``.
    public func disconnect() {
        perform(machine.handle(.disconnectRequested, now: now()))
        flush()
    }

    /// Sends a `pusher:ping` now; the reply is published as `ClientEvent.pong(roundTrip:)`. Does nothing
    /// while not connected or while a ping is already waiting for its reply. (The client also pings on its own
    /// when the connection is idle; this is for showing the round-trip time on a busy connection.)
    public func ping() {
        perform(machine.handle(.pingRequested, now: now()))
        flush()
    }

    // MARK: - Helpers

    func send(_ message: PusherMessage) {
        connection?.send(message.jsonString)
    }

    func emit(_ event: ClientEvent) {
        pending.append(event)
    }

    /// Publishes what was emitted since the last flush, as one batch.
    func flush() {
        guard !pending.isEmpty else { return }
        // Two arrays take turns (a steady stream allocates none); `pending` is empty before the consumers run,
        // which may call back into the client and flush again.
        var batch = spareBatch
        spareBatch = []
        swap(&batch, &pending)
        broadcaster.publish(batch)
        batch.removeAll(keepingCapacity: true)
        spareBatch = batch
    }

    /// Seconds since the client was made, on the event loop's clock (a testing loop's clock is virtual).
    func now() -> Double {
        Double(eventLoop.now.uptimeNanoseconds - start.uptimeNanoseconds) * 1e-9
    }

    func wallClock() -> Double {
        Date().timeIntervalSince1970
    }
}
