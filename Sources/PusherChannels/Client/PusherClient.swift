import Foundation
import Logging
import class NIOPosix.MultiThreadedEventLoopGroup
import protocol NIOCore.EventLoop
import struct NIOCore.Scheduled
import struct NIOCore.TimeAmount
import PusherProtocol

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
    private let transport: any PusherTransport
    private let logger: Logger
    private var machine: ConnectionStateMachine
    private var connection: (any TransportConnection)?
    private var timers: [ConnectionTimer: (token: Int, task: Scheduled<Void>)] = [:]
    private var timerToken = 0
    private var channelOrder: [String] = []
    private var channels: [String: ChannelSubscription] = [:]
    private var bindings = EventBindings()
    private nonisolated let broadcaster = EventBroadcaster()
    private nonisolated let tap = FrameTap()
    /// Sockets opened and not yet reported closed, by attempt.
    private var liveSockets: Set<Int> = []
    private var closeWaiters: [(id: Int, attempt: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    private var closeWaiterID = 0
    private var pending: [ClientEvent] = []
    /// The array of the last published batch, emptied, so that the next batch reuses its storage.
    private var spareBatch: [ClientEvent] = []
    private var pingSentAt: Double?
    private var user = UserSession()
    private let start = ContinuousClock.now

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
    public init(options: PusherClientOptions, transport: (any PusherTransport)? = nil, eventLoop: (any EventLoop)? = nil,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.options = options
        self.logger = options.logger
        self.transport = transport ?? WebSocketTransport(logger: options.logger)
        self.eventLoop = eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        self.machine = ConnectionStateMachine(configuration: options.connection, random: random)
    }

    // MARK: - Consuming events

    /// A new consumer taking events in batches (everything buffered since its last pull).
    /// - Parameter bufferSize: events kept before the oldest are dropped (and counted).
    public nonisolated func eventBatches(bufferSize: Int = 100_000) -> ClientEventBatches {
        broadcaster.makeBatches(capacity: bufferSize)
    }

    /// A new consumer taking events one by one.
    /// - Parameter bufferSize: events kept before the oldest are dropped (counted in ``droppedEventCount``).
    public nonisolated func events(bufferSize: Int = 10_000) -> AsyncStream<ClientEvent> {
        broadcaster.makeStream(capacity: bufferSize)
    }

    /// Events dropped by ``events(bufferSize:)`` streams whose buffers were full.
    public nonisolated var droppedEventCount: Int { broadcaster.streamDroppedCount }

    /// A new consumer of every WebSocket frame in both directions (text as on the wire, after inflation; pings,
    /// pongs and close frames), in batches. While at least one such consumer exists, each delivered
    /// `ChannelEvent` also carries its frame's text in `ChannelEvent/rawFrame`. Costs nothing while nobody taps.
    /// - Parameter bufferSize: frames kept before the oldest are dropped (counted in the batches' `droppedCount`).
    public nonisolated func frames(bufferSize: Int = 10_000) -> WireFrameBatches {
        tap.makeBatches(capacity: bufferSize)
    }

    /// Calls `body` with every batch of events, synchronously, on the client's event loop and isolated to the
    /// client (so it may call `client.assumeIsolated { … }`), as each read burst is handled: the cheapest consumer,
    /// with no buffer, task or wake-up of its own. Keep `body` short: the connection waits for it. It is called
    /// until ``shutdown(closeTimeout:)``.
    public nonisolated func onEventBatch(_ body: @escaping @Sendable ([ClientEvent]) -> Void) {
        broadcaster.addCallback(body)
    }

    /// Calls `body` with every batch of WebSocket frames (see ``frames(bufferSize:)``), synchronously on the
    /// client's event loop, until ``shutdown(closeTimeout:)``.
    public nonisolated func onFrames(_ body: @escaping @Sendable ([WireFrame]) -> Void) {
        tap.addCallback(body)
    }

    /// Frames that arrived for channels this client does not hold (for example an event in flight when an
    /// unsubscribe left): counted, shown in the frame tap, never delivered as channel events.
    public private(set) var framesForUnknownChannels = 0

    /// Calls `callback` for every event named `event` (every event when nil) on `channel` (every channel when
    /// nil). Callbacks run on the client's executor: keep them short.
    @discardableResult
    public func bind(event: String? = nil, channel: String? = nil,
                     _ callback: @escaping @Sendable (ChannelEvent) -> Void) -> BindingHandle {
        bindings.bind(event: event, channel: channel, callback)
    }

    /// Removes the binding `handle` came from; does nothing if it is already gone.
    public func unbind(_ handle: BindingHandle) {
        bindings.unbind(handle)
    }

    /// Removes the bindings of `channel`, or all bindings when `channel` is nil.
    public func unbindAll(channel: String? = nil) {
        bindings.unbindAll(channel: channel)
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
        guard machine.state == .connected, pingSentAt == nil else { return }
        pingSentAt = now()
        send(PusherMessage(event: PusherEventName.ping, data: .object([:])))
    }

    /// Closes the connection like ``disconnect()`` and waits until the close handshake finished (the server
    /// answered our close frame and the socket ended) or `timeout` passed.
    /// - Returns: `true` when the handshake finished in time (or there was no open socket).
    @discardableResult
    public func disconnect(waitingForClose timeout: Duration) async -> Bool {
        let attempt = machine.attempt
        disconnect()
        guard liveSockets.contains(attempt) else { return true }
        closeWaiterID += 1
        let id = closeWaiterID
        let loop = eventLoop
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        let timer = loop.scheduleTask(in: .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            self.assumeIsolated { $0.resumeCloseWaiters { $0.id == id } }
        }
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            closeWaiters.append((id, attempt, continuation))
        }
        timer.cancel()
        return finished
    }

    /// Disconnects (waiting up to `closeTimeout` for the close handshake) and ends every event and frame stream.
    public func shutdown(closeTimeout: Duration = .seconds(1)) async {
        await disconnect(waitingForClose: closeTimeout)
        for (_, timer) in timers { timer.task.cancel() }
        timers = [:]
        flush()
        broadcaster.finish()
        tap.finish()
    }

    private func resumeCloseWaiters(finished: Bool = false, where match: (( id: Int, attempt: Int)) -> Bool) {
        var kept: [(id: Int, attempt: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        for waiter in closeWaiters {
            if match((waiter.id, waiter.attempt)) {
                waiter.continuation.resume(returning: finished)
            } else {
                kept.append(waiter)
            }
        }
        closeWaiters = kept
    }

    // MARK: - Channels

    /// Subscribes to a channel now, or as soon as connected; after a reconnect it is subscribed again.
    /// - Throws: ``ClientError/invalidChannelName(_:)`` when the name breaks Pusher's rules.
    public func subscribe(_ channel: String) throws(ClientError) {
        do {
            try ChannelName.validate(channel)
        } catch {
            throw .invalidChannelName(error)
        }
        guard channels[channel] == nil else { return }
        channels[channel] = ChannelSubscription(name: channel)
        channelOrder.append(channel)
        if machine.state == .connected, !user.holdsChannels { startSubscription(channel) }
        flush()
    }

    /// Leaves a channel (nothing happens for a channel not subscribed).
    public func unsubscribe(_ channel: String) {
        guard let record = channels.removeValue(forKey: channel) else { return }
        channelOrder.removeAll { $0 == channel }
        if machine.state == .connected, record.subscribedOnAttempt == machine.attempt {
            send(PusherMessage(event: PusherEventName.unsubscribe, data: ["channel": .string(channel)]))
        }
        emit(.unsubscribed(channel: channel))
        flush()
    }

    /// Sends a client event (`client-…`) on a subscribed private or presence channel.
    /// - Throws: ``ClientError`` when the event or channel does not allow it; nothing is sent then.
    public func trigger(channel: String, event: String, data: JSONValue) throws(ClientError) {
        guard event.hasPrefix(PusherEventName.clientPrefix) else { throw .notClientEvent(event: event) }
        let kind = ChannelKind(channelName: channel)
        guard kind.allowsClientEvents else { throw .clientEventsNotAllowed(channel: channel, kind: kind) }
        guard let record = channels[channel], record.state == .subscribed else { throw .notSubscribed(channel: channel) }
        guard machine.state == .connected else { throw .notConnected }
        send(PusherMessage(event: event, channel: channel, data: data))
    }

    // MARK: - Performing the state machine's actions

    private func perform(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions {
            switch action {
            case .openSocket(let attempt, let useTLS):
                openSocket(attempt: attempt, useTLS: useTLS)
            case .closeSocket(let code, let reason):
                connection?.close(code: code, reason: reason)
                connection = nil
            case .sendPing:
                pingSentAt = now()
                send(PusherMessage(event: PusherEventName.ping, data: .object([:])))
            case .startTimer(let timer, let seconds):
                startTimer(timer, seconds: seconds)
            case .cancelTimer(let timer):
                timers.removeValue(forKey: timer)?.task.cancel()
            case .publishState(let change):
                logger.debug("state \(change.previous) -> \(change.current)")
                emit(.state(change))
            case .publishConnectingIn(let delay):
                emit(.connectingIn(delay: delay))
            case .publishClosure(let closure):
                logger.info("connection closed: \(closure.code.map(String.init) ?? "no code") \(closure.meaning); \(closure.action.rawValue)")
                emit(.closed(closure))
            case .connectionEstablished:
                // A sign-in goes first: the channels subscribe once it succeeded or failed.
                if !startSignIn(holdingChannels: true) {
                    for name in channelOrder { startSubscription(name) }
                }
            case .connectionLost:
                pingSentAt = nil
                if let lost = user.connectionEnded() { emit(.signedOut(userID: lost.id)) }
                for name in channelOrder {
                    channels[name]?.state = .pending
                    channels[name]?.subscribedOnAttempt = nil
                    channels[name]?.roster.removeAll()
                    channels[name]?.heldEncrypted = []
                    channels[name]?.refreshingKey = false
                }
            }
        }
    }

    private func openSocket(attempt: Int, useTLS: Bool) {
        connection?.close(code: 1000, reason: "replaced")
        let url = options.url(useTLS: useTLS)
        logger.debug("connecting to \(url)")
        let loop = eventLoop
        liveSockets.insert(attempt)
        connection = transport.open(url: url, on: loop, settings: options.transportSettings, tap: tap) { [weak self] events in
            guard let self else { return }
            // The real transport calls on `loop`; a scripted one may call from anywhere.
            if loop.inEventLoop {
                self.assumeIsolated { $0.receive(events, attempt: attempt) }
            } else {
                loop.execute { self.assumeIsolated { $0.receive(events, attempt: attempt) } }
            }
        }
    }

    private func startTimer(_ timer: ConnectionTimer, seconds: Double) {
        timers[timer]?.task.cancel()
        timerToken += 1
        let token = timerToken
        let task = eventLoop.scheduleTask(in: .nanoseconds(Int64(max(0, seconds) * 1e9))) { [weak self] in
            guard let self else { return }
            self.assumeIsolated { $0.timerFired(timer, token: token) }
        }
        timers[timer] = (token, task)
    }

    private func timerFired(_ timer: ConnectionTimer, token: Int) {
        guard timers[timer]?.token == token else { return }
        timers[timer] = nil
        perform(machine.handle(.timerFired(timer), now: now()))
        flush()
    }

    // MARK: - Inbound

    /// One read burst from the transport, handled in one go and published as one batch.
    private func receive(_ events: [TransportEvent], attempt: Int) {
        // One read: its events share the time it arrived.
        let t = now()
        let wall = wallClock()
        for event in events {
            handle(event, attempt: attempt, now: t, wall: wall)
        }
        flush()
    }

    private func handle(_ item: TransportEvent, attempt: Int, now t: Double, wall: Double) {
        switch item {
        case .opened:
            break
        case .closed(let code, let reason):
            if attempt == machine.attempt { connection = nil }
            liveSockets.remove(attempt)
            perform(machine.handle(.socketClosed(attempt: attempt, code: code, reason: reason), now: t))
            if !closeWaiters.isEmpty { resumeCloseWaiters(finished: true) { $0.attempt == attempt } }
        case .malformed(let error):
            guard attempt == machine.attempt else { return }
            _ = machine.handle(.frameReceived(attempt: attempt), now: t)
            logger.warning("skipped a frame: \(error)")
            emit(.error(code: nil, message: "skipped a frame: \(error)"))
        case .message(let message, let raw):
            guard attempt == machine.attempt else { return }
            perform(machine.handle(.frameReceived(attempt: attempt), now: t))
            handle(message, raw: raw, attempt: attempt, now: t, wall: wall)
        }
    }

    private func handle(_ message: PusherMessage, raw: String?, attempt: Int, now t: Double, wall: Double) {
        // An app's events (the bulk of a stream) cannot be protocol events, which all start with "pusher".
        guard message.event.utf8.first == UInt8(ascii: "p") else {
            return receiveChannelEvent(message, raw: raw, now: t, wall: wall)
        }
        switch message.event {
        case PusherEventName.connectionEstablished:
            guard let data = message.dataJSON, let socketID = data["socket_id"]?.stringValue else {
                emit(.error(code: nil, message: "connection_established without a socket_id"))
                return
            }
            let timeout = data["activity_timeout"]?.numberValue
            perform(machine.handle(.established(attempt: attempt, socketID: socketID, activityTimeout: timeout), now: t))
        case PusherEventName.error:
            let data = message.dataJSON
            let code = data?["code"]?.intValue
            let text = data?["message"]?.stringValue ?? message.dataText ?? "unknown error"
            emit(.error(code: code, message: text))
            // Pusher refuses a sign-in with 4009; a server without sign-in names the event it does not support.
            if user.phase == .awaitingServer, code == 4009 || text.contains(PusherEventName.signin) {
                signInFinished(failure: (nil, "the server refused the sign-in: \(code.map { "\($0) " } ?? "")\(text)"))
            }
        case PusherEventName.signinSuccess:
            signinSucceeded(message)
        case PusherEventName.watchlistEvents:
            for change in WatchlistChange.changes(fromWatchlistData: message.dataJSON) {
                user.apply(change)
                emit(.watchlist(change))
            }
        case PusherEventName.ping:
            send(PusherMessage(event: PusherEventName.pong, data: .object([:])))
        case PusherEventName.pong:
            if let sent = pingSentAt {
                pingSentAt = nil
                emit(.pong(roundTrip: t - sent))
            }
        case PusherEventName.subscriptionSucceeded:
            subscriptionSucceeded(message)
        case PusherEventName.subscriptionError:
            if let channel = message.channel, channel == user.serverToUserChannel {
                emit(.error(code: nil, message: "the server refused events to the user (\(channel)): \(message.dataText ?? "")"))
                return
            }
            guard let channel = message.channel, channels[channel] != nil else { return }
            let data = message.dataJSON
            let status = data?["status"]?.intValue
            let text = data?["error"]?.stringValue ?? data?["message"]?.stringValue ?? data?["type"]?.stringValue
                ?? message.dataText ?? "subscription refused"
            channels[channel]?.state = .failed(text)
            emit(.subscriptionError(channel: channel, status: status, message: text))
        case PusherEventName.memberAdded:
            guard let channel = message.channel, channels[channel] != nil, let data = message.dataJSON,
                let userID = data["user_id"].flatMap(PresenceRoster.userID(from:))
            else { return }
            let member = PresenceMember(userID: userID, userInfo: data["user_info"])
            if channels[channel]!.roster.add(member) {
                emit(.memberAdded(channel: channel, member: member))
            }
        case PusherEventName.memberRemoved:
            guard let channel = message.channel, channels[channel] != nil,
                let userID = message.dataJSON?["user_id"].flatMap(PresenceRoster.userID(from:)),
                let removed = channels[channel]!.roster.remove(userID: userID)
            else { return }
            emit(.memberRemoved(channel: channel, member: removed))
        case PusherEventName.subscriptionCount:
            guard let channel = message.channel,
                let count = message.dataJSON?["subscription_count"]?.intValue
            else { return }
            emit(.subscriptionCount(channel: channel, count: count))
        default:
            if message.event.hasPrefix("pusher_internal:") { return }
            receiveChannelEvent(message, raw: raw, now: t, wall: wall)
        }
    }

    /// An event that is not the protocol's own: for a channel, or for the signed-in user.
    private func receiveChannelEvent(_ message: PusherMessage, raw: String?, now t: Double, wall: Double) {
        let channel = message.channel ?? ""
        if let userChannel = user.serverToUserChannel, channel == userChannel, let id = user.user?.id {
            if !message.event.hasPrefix("pusher:") {
                emit(.userEvent(UserEvent(userID: id, name: message.event, dataText: message.dataText,
                                          receivedAt: wall)))
            }
            return
        }
        let kind = channels[channel]?.kind
        if kind == nil, message.channel != nil {
            // Not (or no longer) ours: an event in flight when an unsubscribe left, or a server's mistake.
            framesForUnknownChannels += 1
            return
        }
        if kind == .encrypted, !message.event.hasPrefix("pusher:") {
            receiveEncrypted(message, raw: raw, channel: channel, now: t)
            return
        }
        deliver(ChannelEvent(channel: channel, name: message.event, dataText: message.dataText,
                             userID: message.userID, receivedAt: wall, rawFrame: raw))
    }

    private func deliver(_ event: ChannelEvent) {
        emit(.event(event))
        if !bindings.isEmpty { bindings.dispatch(event) }
    }

    private func subscriptionSucceeded(_ message: PusherMessage) {
        guard let channel = message.channel, var record = channels[channel] else { return }
        record.state = .subscribed
        var presence: PresenceSnapshot?
        if record.kind == .presence {
            let data = message.dataJSON
            record.roster.replace(withPresence: data?["presence"], me: record.roster.me)
            presence = record.roster.snapshot
        }
        channels[channel] = record
        emit(.subscribed(channel: channel, presence: presence))
    }

    // MARK: - Subscribing

    private func startSubscription(_ name: String) {
        guard var record = channels[name], let socketID = machine.socketID else { return }
        guard record.subscribedOnAttempt != machine.attempt else { return }
        guard record.kind.requiresAuthorization else {
            record.subscribedOnAttempt = machine.attempt
            record.state = .subscribing
            channels[name] = record
            send(PusherMessage(event: PusherEventName.subscribe, data: ["channel": .string(name)]))
            emit(.subscribing(channel: name))
            return
        }
        guard let authorizer = options.authorizer else {
            let error = AuthError.noAuthorizer(channel: name)
            record.state = .failed(error.description)
            channels[name] = record
            emit(.subscriptionError(channel: name, status: nil, message: error.description))
            return
        }
        record.authorizationGeneration += 1
        record.state = .authorizing
        record.subscribedOnAttempt = machine.attempt
        channels[name] = record
        emit(.subscribing(channel: name))
        requestAuthorization(name, socketID: socketID, authorizer: authorizer,
                             generation: record.authorizationGeneration)
    }

    /// Asks the authorizer off the actor; the answer comes back to ``authorizationFinished``, which ignores it
    /// when a newer request or another connection has come since.
    private func requestAuthorization(_ name: String, socketID: String, authorizer: any Authorizer, generation: Int) {
        let attempt = machine.attempt
        Task { [weak self] in
            let started = Date().timeIntervalSince1970
            let result: Result<ChannelAuthorization, any Error>
            var details = AuthorizationDetails(authorizer: authorizer is SecretAuthorizer ? "local secret"
                : authorizer is CallbackAuthorizer ? "callback" : String(describing: type(of: authorizer)))
            if let tracing = authorizer as? any TracingAuthorizer {
                (result, details) = await tracing.authorizeTraced(channel: name, socketID: socketID)
            } else {
                do {
                    result = .success(try await authorizer.authorize(channel: name, socketID: socketID))
                } catch {
                    result = .failure(error)
                }
            }
            var trace = AuthorizationTrace(
                channel: name, socketID: socketID, authorizer: details.authorizer, startedAt: started,
                duration: Date().timeIntervalSince1970 - started, status: details.status,
                responseExcerpt: details.responseBody)
            switch result {
            case .success(let value):
                (trace.auth, trace.channelData, trace.hasSharedSecret) = (value.auth, value.channelData, value.sharedSecret != nil)
            case .failure(let error):
                trace.status = trace.status ?? (error as? AuthError)?.status
                trace.error = (error as? AuthError)?.description ?? String(describing: error)
            }
            await self?.authorizationFinished(name, generation: generation, attempt: attempt, result: result, trace: trace)
        }
    }

    private func authorizationFinished(_ name: String, generation: Int, attempt: Int,
                                       result: Result<ChannelAuthorization, any Error>, trace: AuthorizationTrace) {
        defer { flush() }
        guard var record = channels[name], record.authorizationGeneration == generation,
            attempt == machine.attempt, machine.state == .connected
        else { return }
        emit(.authorization(trace))
        let refreshing = record.refreshingKey
        switch result {
        case .failure(let error):
            let status = (error as? AuthError)?.status
            let text = (error as? AuthError)?.description ?? String(describing: error)
            logger.warning("authorization failed for \(name): \(text)")
            if refreshing {
                // The subscription stands; only the held events are lost.
                dropHeldEncrypted(name, reason: "could not fetch a fresh key: \(text)")
                return
            }
            record.state = .failed(text)
            channels[name] = record
            emit(.subscriptionError(channel: name, status: status, message: text))
        case .success(let authorization):
            var sharedKey: [UInt8]?
            if record.kind == .encrypted {
                guard let secret = authorization.sharedSecret, let bytes = Data(base64Encoded: secret),
                    bytes.count == SecretBox.keySize
                else {
                    let text = "authorization for an encrypted channel has no valid shared_secret"
                    if refreshing {
                        dropHeldEncrypted(name, reason: text)
                    } else {
                        record.state = .failed(text)
                        channels[name] = record
                        emit(.subscriptionError(channel: name, status: nil, message: text))
                    }
                    return
                }
                sharedKey = Array(bytes)
            }
            if refreshing {
                record.refreshingKey = false
                record.sharedSecret = sharedKey
                let held = record.heldEncrypted
                record.heldEncrypted = []
                channels[name] = record
                for message in held { decryptAndDeliver(message, channel: name, mayRefresh: false) }
                return
            }
            record.sharedSecret = sharedKey
            record.keyRefreshed = false
            if record.kind == .presence, let channelData = authorization.channelData {
                let me = JSONValue.parseIfJSON(channelData)?["user_id"].flatMap(PresenceRoster.userID(from:))
                record.roster = PresenceRoster(me: me)
            }
            record.state = .subscribing
            channels[name] = record
            var data: [String: JSONValue] = ["channel": .string(name), "auth": .string(authorization.auth)]
            if let channelData = authorization.channelData { data["channel_data"] = .string(channelData) }
            send(PusherMessage(event: PusherEventName.subscribe, data: .object(data)))
        }
    }

    // MARK: - Signing in

    /// The signed-in user, or `nil` when the connection is not signed in (yet).
    public var signedInUser: SignedInUser? { user.user }

    /// Users of the signed-in user's watchlist that are online now (from `pusher_internal:watchlist_events`).
    public var onlineWatchedUsers: Set<String> { user.online }

    /// Signs the user in now, or as soon as connected, and again after every reconnect (before the channels
    /// subscribe again), as pusher-js's `signin()`. The result is published as `ClientEvent/signedIn(_:)` or
    /// `ClientEvent/signInFailed(status:message:)`; events sent to the user then arrive as
    /// `ClientEvent/userEvent(_:)` and watchlist changes as `ClientEvent/watchlist(_:)`.
    /// - Throws: ``ClientError/noUserAuthenticator`` without ``PusherClientOptions/userAuthenticator``.
    public func signIn() throws(ClientError) {
        guard options.userAuthenticator != nil else { throw .noUserAuthenticator }
        guard !user.requested else { return }
        user.requested = true
        if machine.state == .connected { _ = startSignIn(holdingChannels: false) }
        flush()
    }

    /// Stops being signed in: user events and watchlist changes are no longer received, and the client does not
    /// sign in on later connections. Pusher has no sign-out message, so the server keeps counting this
    /// connection as the user until it ends (reconnect with ``disconnect()`` and ``connect()`` for that).
    public func signOut() {
        guard user.requested else { return }
        user.requested = false
        let wasHolding = user.holdsChannels
        if let channel = user.serverToUserChannel, machine.state == .connected {
            send(PusherMessage(event: PusherEventName.unsubscribe, data: ["channel": .string(channel)]))
        }
        if let previous = user.connectionEnded() { emit(.signedOut(userID: previous.id)) }
        if wasHolding { for name in channelOrder { startSubscription(name) } }
        flush()
    }

    /// Starts signing in on the current connection when asked to; returns whether it did.
    private func startSignIn(holdingChannels: Bool) -> Bool {
        guard user.requested, let authenticator = options.userAuthenticator, let socketID = machine.socketID else {
            return false
        }
        user.generation += 1
        let generation = user.generation
        user.phase = .authenticating(generation: generation)
        user.holdsChannels = holdingChannels
        let attempt = machine.attempt
        Task { [weak self] in
            let result: Result<UserAuthentication, any Error>
            do {
                result = .success(try await authenticator.authenticate(socketID: socketID))
            } catch {
                result = .failure(error)
            }
            await self?.authenticationFinished(generation: generation, attempt: attempt, result: result)
        }
        return true
    }

    private func authenticationFinished(generation: Int, attempt: Int, result: Result<UserAuthentication, any Error>) {
        defer { flush() }
        guard user.phase == .authenticating(generation: generation), attempt == machine.attempt,
            machine.state == .connected
        else { return }
        switch result {
        case .failure(let error):
            let authError = error as? AuthError
            let text = authError?.description ?? String(describing: error)
            logger.warning("user authentication failed: \(text)")
            signInFinished(failure: (authError?.status, text))
        case .success(let authentication):
            do throws(UserDataError) {
                _ = try SignedInUser(userData: authentication.userData)
            } catch {
                signInFinished(failure: (nil, "user authentication returned bad user_data: \(error.description)"))
                return
            }
            user.phase = .awaitingServer
            send(PusherMessage(event: PusherEventName.signin, data: [
                "auth": .string(authentication.auth), "user_data": .string(authentication.userData),
            ]))
        }
    }

    private func signinSucceeded(_ message: PusherMessage) {
        guard user.requested, user.phase == .awaitingServer || user.phase == .idle else { return }
        let text = message.dataJSON?["user_data"].flatMap { $0.stringValue ?? $0.jsonString } ?? ""
        let signed: SignedInUser
        do throws(UserDataError) {
            signed = try SignedInUser(userData: text)
        } catch {
            signInFinished(failure: (nil, "pusher:signin_success carries bad user_data: \(error.description)"))
            return
        }
        user.phase = .signedIn(signed)
        emit(.signedIn(signed))
        // As pusher-js: events to the user come on their own channel, which needs no authorization.
        send(PusherMessage(event: PusherEventName.subscribe,
                           data: ["channel": .string(PusherEventName.serverToUserPrefix + signed.id)]))
        releaseChannels()
    }

    /// Ends a sign-in that failed; the channels subscribe all the same.
    private func signInFinished(failure: (status: Int?, message: String)) {
        user.phase = .idle
        emit(.signInFailed(status: failure.status, message: failure.message))
        releaseChannels()
    }

    private func releaseChannels() {
        guard user.holdsChannels else { return }
        user.holdsChannels = false
        for name in channelOrder { startSubscription(name) }
    }

    // MARK: - Encrypted channels

    /// Ends a key refresh that failed: each event held for it is reported as a decryption error.
    private func dropHeldEncrypted(_ name: String, reason: String) {
        guard var record = channels[name] else { return }
        let held = record.heldEncrypted
        record.refreshingKey = false
        record.heldEncrypted = []
        channels[name] = record
        for message in held {
            emit(.decryptionError(channel: name, event: message.event, message: reason))
        }
    }

    private func receiveEncrypted(_ message: PusherMessage, raw: String?, channel: String, now t: Double) {
        guard let record = channels[channel] else { return }
        if record.refreshingKey {
            channels[channel]?.heldEncrypted.append(message)
            return
        }
        decryptAndDeliver(message, raw: raw, channel: channel, mayRefresh: true)
    }

    private func decryptAndDeliver(_ message: PusherMessage, raw: String? = nil, channel: String, mayRefresh: Bool) {
        guard let record = channels[channel] else { return }
        do throws(SecretBox.Failure) {
            guard let key = record.sharedSecret else { throw SecretBox.Failure.badKey(size: 0) }
            let text = try SecretBox.openPusherPayload(message.dataText ?? "", key: key)
            if record.keyRefreshed { channels[channel]?.keyRefreshed = false }
            deliver(ChannelEvent(channel: channel, name: message.event, dataText: text, userID: message.userID,
                                 receivedAt: wallClock(), rawFrame: raw))
        } catch {
            if mayRefresh, !record.keyRefreshed, error == .authenticationFailed || error == .badKey(size: 0),
                let socketID = machine.socketID, let authorizer = options.authorizer
            {
                // The key may have rotated: fetch a fresh one once, then try again.
                channels[channel]?.keyRefreshed = true
                channels[channel]?.refreshingKey = true
                channels[channel]?.heldEncrypted = [message]
                channels[channel]?.authorizationGeneration += 1
                requestAuthorization(channel, socketID: socketID, authorizer: authorizer,
                                     generation: channels[channel]!.authorizationGeneration)
                return
            }
            emit(.decryptionError(channel: channel, event: message.event, message: error.description))
        }
    }

    // MARK: - Helpers

    private func send(_ message: PusherMessage) {
        connection?.send(message.jsonString)
    }

    private func emit(_ event: ClientEvent) {
        pending.append(event)
    }

    /// Publishes what was emitted since the last flush, as one batch.
    private func flush() {
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

    private func now() -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    private func wallClock() -> Double {
        Date().timeIntervalSince1970
    }
}
