import Foundation
import Logging
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
public actor PusherClient {
    /// This library's version (sent to the server in the connection URL).
    public static let version = "0.1.0"

    public nonisolated let options: PusherClientOptions
    private let transport: any PusherTransport
    private let logger: Logger
    private var machine: ConnectionStateMachine
    private var connection: (any TransportConnection)?
    private var timers: [ConnectionTimer: (token: Int, task: Task<Void, Never>)] = [:]
    private var timerToken = 0
    private var channelOrder: [String] = []
    private var channels: [String: ChannelSubscription] = [:]
    private var bindings = EventBindings()
    private nonisolated let broadcaster = EventBroadcaster()
    private nonisolated let inbox = FrameInbox()
    private var pending: [ClientEvent] = []
    private var pingSentAt: Double?
    private let start = ContinuousClock.now

    public init(options: PusherClientOptions, transport: (any PusherTransport)? = nil,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.options = options
        self.logger = options.logger
        self.transport = transport ?? WebSocketTransport(logger: options.logger)
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

    /// Calls `callback` for every event named `event` (every event when nil) on `channel` (every channel when
    /// nil). Callbacks run on the client's executor: keep them short.
    @discardableResult
    public func bind(event: String? = nil, channel: String? = nil,
                     _ callback: @escaping @Sendable (ChannelEvent) -> Void) -> BindingHandle {
        bindings.bind(event: event, channel: channel, callback)
    }

    public func unbind(_ handle: BindingHandle) {
        bindings.unbind(handle)
    }

    /// Removes the bindings of `channel`, or all bindings when `channel` is nil.
    public func unbindAll(channel: String? = nil) {
        bindings.unbindAll(channel: channel)
    }

    // MARK: - State

    public var state: ConnectionState { machine.state }
    public var socketID: String? { machine.socketID }
    /// Why the connection failed, when its state is `failed`.
    public var failureReason: String? { machine.failureReason }

    /// Channels the client subscribes to, in the order they were asked for.
    public var channelNames: [String] { channelOrder }

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

    /// Disconnects and ends every event stream.
    public func shutdown() {
        disconnect()
        for (_, timer) in timers { timer.task.cancel() }
        timers = [:]
        broadcaster.finish()
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
        if machine.state == .connected { startSubscription(channel) }
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
                for name in channelOrder { startSubscription(name) }
            case .connectionLost:
                pingSentAt = nil
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
        let inbox = self.inbox
        let maxFrameSize = options.maxFrameSize
        connection = transport.open(url: url) { [weak self] event in
            let item: InboundItem
            switch event {
            case .opened:
                item = .opened
            case .text(let text):
                let size = text.utf8.count
                if size > maxFrameSize {
                    item = .malformed(.tooLarge(size: size, limit: maxFrameSize))
                } else {
                    do throws(PusherMessageError) {
                        item = .message(try PusherMessage(decoding: text), size: size)
                    } catch {
                        item = .malformed(error)
                    }
                }
            case .binary(let size):
                item = .malformed(.binaryFrame(size: size))
            case .closed(let code, let reason):
                item = .closed(code: code, reason: reason)
            }
            if inbox.push(attempt: attempt, item) {
                Task {
                    if inbox.isBusy { try? await Task.sleep(for: FrameInbox.coalescingDelay) }
                    await self?.drainInbox()
                }
            }
        }
    }

    private func startTimer(_ timer: ConnectionTimer, seconds: Double) {
        timers[timer]?.task.cancel()
        timerToken += 1
        let token = timerToken
        let task = Task { [weak self] in
            try? await Task.sleep(for: .seconds(max(0, seconds)))
            guard !Task.isCancelled else { return }
            await self?.timerFired(timer, token: token)
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

    private func drainInbox() {
        while true {
            let items = inbox.take()
            if items.isEmpty { break }
            for (attempt, item) in items {
                handle(item, attempt: attempt)
            }
            flush()
        }
    }

    private func handle(_ item: InboundItem, attempt: Int) {
        let t = now()
        switch item {
        case .opened:
            break
        case .closed(let code, let reason):
            if attempt == machine.attempt { connection = nil }
            perform(machine.handle(.socketClosed(attempt: attempt, code: code, reason: reason), now: t))
        case .malformed(let error):
            guard attempt == machine.attempt else { return }
            _ = machine.handle(.frameReceived(attempt: attempt), now: t)
            logger.warning("skipped a frame: \(error)")
            emit(.error(code: nil, message: "skipped a frame: \(error)"))
        case .message(let message, _):
            guard attempt == machine.attempt else { return }
            perform(machine.handle(.frameReceived(attempt: attempt), now: t))
            handle(message, attempt: attempt, now: t)
        }
    }

    private func handle(_ message: PusherMessage, attempt: Int, now t: Double) {
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
            let channel = message.channel ?? ""
            if let record = channels[channel], record.kind == .encrypted, !message.event.hasPrefix("pusher:") {
                receiveEncrypted(message, channel: channel, now: t)
                return
            }
            deliver(ChannelEvent(channel: channel, name: message.event, dataText: message.dataText,
                                 userID: message.userID, receivedAt: wallClock()))
        }
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
            let result: Result<ChannelAuthorization, any Error>
            do {
                result = .success(try await authorizer.authorize(channel: name, socketID: socketID))
            } catch {
                result = .failure(error)
            }
            await self?.authorizationFinished(name, generation: generation, attempt: attempt, result: result)
        }
    }

    private func authorizationFinished(_ name: String, generation: Int, attempt: Int,
                                       result: Result<ChannelAuthorization, any Error>) {
        defer { flush() }
        guard var record = channels[name], record.authorizationGeneration == generation,
            attempt == machine.attempt, machine.state == .connected
        else { return }
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

    private func receiveEncrypted(_ message: PusherMessage, channel: String, now t: Double) {
        guard let record = channels[channel] else { return }
        if record.refreshingKey {
            channels[channel]?.heldEncrypted.append(message)
            return
        }
        decryptAndDeliver(message, channel: channel, mayRefresh: true)
    }

    private func decryptAndDeliver(_ message: PusherMessage, channel: String, mayRefresh: Bool) {
        guard let record = channels[channel] else { return }
        do throws(SecretBox.Failure) {
            guard let key = record.sharedSecret else { throw SecretBox.Failure.badKey(size: 0) }
            let text = try SecretBox.openPusherPayload(message.dataText ?? "", key: key)
            if record.keyRefreshed { channels[channel]?.keyRefreshed = false }
            deliver(ChannelEvent(channel: channel, name: message.event, dataText: text, userID: message.userID,
                                 receivedAt: wallClock()))
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
        let batch = pending
        pending = []
        broadcaster.publish(batch)
    }

    private func now() -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    private func wallClock() -> Double {
        Date().timeIntervalSince1970
    }
}
