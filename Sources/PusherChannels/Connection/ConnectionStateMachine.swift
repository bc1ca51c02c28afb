import PusherProtocol

/// The rules of a Pusher connection as a value: inputs in, actions out.
///
/// The client actor owns one, feeds it what happens (requests, socket events, timers) and performs the
/// actions it returns. No socket, clock or task lives here, so every rule of the seeds (close-code ranges,
/// back-off, `unavailable`, pong timeout) is tested directly: "given connected, when 4201 arrives, then
/// reconnect now".
///
/// Each socket the machine opens has an attempt number; events of an older socket are ignored.
public struct ConnectionStateMachine: Sendable {
    /// What happens to the connection: a request from the user, an event of the socket, a timer.
    public enum Input: Sendable, Hashable {
        case connectRequested
        case disconnectRequested
        /// `pusher:connection_established` arrived on socket `attempt`.
        case established(attempt: Int, socketID: String, activityTimeout: Double?)
        /// Any frame arrived on socket `attempt` (it proves the connection alive).
        case frameReceived(attempt: Int)
        /// Socket `attempt` closed (`code` nil: the transport failed, or never opened).
        case socketClosed(attempt: Int, code: Int?, reason: String)
        case timerFired(ConnectionTimer)
        /// The user asks for a `pusher:ping` now (to show the round trip on a busy connection).
        case pingRequested
        /// `pusher:pong` arrived on socket `attempt`.
        case pongReceived(attempt: Int)
        /// `pusher:error` arrived on socket `attempt`, with its code (if any) and message. Before the handshake it is
        /// the server's refusal: a socket that then ends without a close frame ends with this code.
        case errorReceived(attempt: Int, code: Int?, message: String)
    }

    /// What the owner of the machine must do, in order.
    public enum Action: Sendable, Hashable {
        case openSocket(attempt: Int, useTLS: Bool)
        case closeSocket(code: Int, reason: String)
        case sendPing
        case startTimer(ConnectionTimer, seconds: Double)
        case cancelTimer(ConnectionTimer)
        case publishState(StateChange)
        case publishConnectingIn(Double)
        /// A pong answered our ping after `roundTrip` seconds.
        case publishPong(roundTrip: Double)
        case publishClosure(ConnectionClosure)
        /// The handshake completed: (re)subscribe channels with this socket id.
        case connectionEstablished(socketID: String)
        /// The connection that was established is gone: channels are no longer subscribed.
        case connectionLost
    }

    /// The current state.
    public private(set) var state: ConnectionState = .initialized
    /// The socket id of the current connection; `nil` unless connected.
    public private(set) var socketID: String?
    /// Failed attempts in a row since the last successful connection.
    public private(set) var failedAttempts = 0
    /// Whether the next socket uses TLS (close code 4000 switches it on).
    public private(set) var useTLS: Bool
    /// The number of the current socket.
    public private(set) var attempt = 0
    /// The activity timeout in force on the current connection.
    public private(set) var activityTimeout: Double = ConnectionConfiguration.defaultActivityTimeout
    /// Why the connection failed, when it did.
    public private(set) var failureReason: String?
    /// Whether a `pusher:ping` was sent because the connection was idle and its pong has not arrived yet (the pong
    /// timeout runs).
    public private(set) var awaitingPong = false
    /// When the `pusher:ping` waiting for its pong was sent (either kind), for the round trip; `nil` when none waits.
    public private(set) var pingSentAt: Double?

    /// Timeouts, TLS and the reconnection policy; changes apply from the next input.
    public var configuration: ConnectionConfiguration
    private var triedTLSUpgrade = false
    /// The `pusher:error` of the current socket before its handshake (code, message): what its end means when no close
    /// frame says otherwise.
    private var refusal: (code: Int, message: String)?
    private var lastFrameAt: Double = 0
    private var random: @Sendable () -> Double

    /// A machine in the `initialized` state.
    /// - Parameters:
    ///   - configuration: timeouts, TLS and the reconnection policy.
    ///   - random: a source of values in 0...1 for the jitter (injected so tests are exact).
    public init(
        configuration: ConnectionConfiguration,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.configuration = configuration
        self.useTLS = configuration.useTLS
        self.random = random
    }

    /// Feeds one input at monotonic time `now` (seconds) and returns what to do, in order.
    public mutating func handle(_ input: Input, now: Double) -> [Action] {
        switch input {
        case .connectRequested:
            return connectRequested(now: now)
        case .disconnectRequested:
            return disconnectRequested()
        case .established(let n, let socketID, let serverTimeout):
            guard n == attempt, state == .connecting || state == .unavailable else { return [] }
            return established(socketID: socketID, serverTimeout: serverTimeout, now: now)
        case .frameReceived(let n):
            guard n == attempt else { return [] }
            lastFrameAt = now
            if awaitingPong {
                awaitingPong = false
                return [.cancelTimer(.pong)]
            }
            return []
        case .socketClosed(let n, let code, let reason):
            guard n == attempt, isActive else { return [] }
            // A refusal then the end of the connection without a close frame (as pusher-js reads a handshake that
            // ends in `pusher:error`): the refusal's code and message, not a network failure to retry.
            if code == nil, let refusal {
                return socketLost(code: refusal.code, reason: refusal.message, closeOurSide: false)
            }
            return socketLost(code: code, reason: reason, closeOurSide: false)
        case .timerFired(let timer):
            return timerFired(timer, now: now)
        case .pingRequested:
            guard state == .connected, pingSentAt == nil else { return [] }
            pingSentAt = now
            return [.sendPing]
        case .pongReceived(let n):
            guard n == attempt, let sent = pingSentAt else { return [] }
            pingSentAt = nil
            return [.publishPong(roundTrip: now - sent)]
        case .errorReceived(let n, let code, let message):
            guard n == attempt, state == .connecting || state == .unavailable, let code else { return [] }
            refusal = (code, message)
            return []
        }
    }

    /// Whether the machine is connecting, connected or retrying.
    public var isActive: Bool {
        state == .connecting || state == .connected || state == .unavailable
    }

    // MARK: - Transitions

    private mutating func connectRequested(now: Double) -> [Action] {
        guard !isActive else { return [] }
        failedAttempts = 0
        triedTLSUpgrade = false
        useTLS = configuration.useTLS
        failureReason = nil
        var actions = transition(to: .connecting)
        actions.append(.startTimer(.unavailable, seconds: configuration.unavailableTimeout))
        actions += openAttempt()
        return actions
    }

    private mutating func disconnectRequested() -> [Action] {
        guard isActive else { return [] }
        let wasConnected = state == .connected
        attempt += 1  // whatever the old socket still reports is stale now
        awaitingPong = false
        pingSentAt = nil
        var actions: [Action] = ConnectionTimer.allCases.map { .cancelTimer($0) }
        actions.append(.closeSocket(code: 1000, reason: "disconnect requested"))
        if wasConnected { actions.append(.connectionLost) }
        socketID = nil
        actions += transition(to: .disconnected)
        return actions
    }

    private mutating func established(socketID: String, serverTimeout: Double?, now: Double) -> [Action] {
        failedAttempts = 0
        self.socketID = socketID
        lastFrameAt = now
        awaitingPong = false
        let timeouts = [configuration.activityTimeout, serverTimeout].compactMap { $0 }.filter { $0 > 0 }
        activityTimeout = timeouts.min() ?? ConnectionConfiguration.defaultActivityTimeout
        var actions: [Action] = [.cancelTimer(.handshake), .cancelTimer(.unavailable), .cancelTimer(.retry)]
        actions += transition(to: .connected, socketID: socketID)
        actions.append(.connectionEstablished(socketID: socketID))
        actions.append(.startTimer(.activity, seconds: activityTimeout))
        return actions
    }

    /// The socket is gone (closed by the server, failed, or closed by us for a timeout): decide what next.
    private mutating func socketLost(code: Int?, reason: String, closeOurSide: Bool) -> [Action] {
        let wasConnected = state == .connected
        var actions: [Action] = [.cancelTimer(.activity), .cancelTimer(.pong), .cancelTimer(.handshake)]
        if closeOurSide {
            attempt += 1
            actions.append(.closeSocket(code: 1000, reason: reason))
        }
        awaitingPong = false
        pingSentAt = nil
        if wasConnected {
            actions.append(.connectionLost)
            socketID = nil
        }

        let mapped = CloseCode.action(for: code)
        switch mapped {
        case .refuse:
            return actions + fail(code: code, reason: reason, action: .refuse)
        case .retryWithTLS:
            guard !useTLS, !triedTLSUpgrade else {
                return actions + fail(code: code, reason: reason, action: .refuse)
            }
            triedTLSUpgrade = true
            useTLS = true
            actions.append(.publishClosure(ConnectionClosure(code: code, reason: reason, action: .retryWithTLS)))
            if wasConnected { actions += transition(to: .connecting) }
            actions.append(.startTimer(.unavailable, seconds: configuration.unavailableTimeout))
            return actions + openAttempt()
        case .reconnectNow, .backOff, .followPolicy, .giveUp:
            failedAttempts += 1
            let policy = configuration.reconnect
            guard policy.allows(attempt: failedAttempts) else {
                let why =
                    policy.kind == .none
                    ? "reconnection is off"
                    : "gave up after \(failedAttempts - 1) failed \(failedAttempts - 1 == 1 ? "retry" : "retries")"
                let detail = reason.isEmpty ? CloseCode.meaning(of: code) : reason
                return actions + fail(code: code, reason: "\(detail); \(why)", action: .giveUp)
            }
            let delay: Double
            switch mapped {
            case .reconnectNow: delay = 0
            // 4100-4199 means "reconnect after 1 s or more": neither the jitter nor a short policy goes below it.
            case .backOff:
                delay = max(CloseCode.minimumBackOff, policy.delay(attempt: failedAttempts, unitRandom: random()))
            default: delay = policy.delay(attempt: failedAttempts, unitRandom: random())
            }
            actions.append(.publishClosure(ConnectionClosure(code: code, reason: reason, action: mapped)))
            if wasConnected {
                actions += transition(to: .connecting)
                actions.append(.startTimer(.unavailable, seconds: configuration.unavailableTimeout))
            }
            actions.append(.publishConnectingIn(delay))
            actions.append(.startTimer(.retry, seconds: delay))
            return actions
        }
    }

    private mutating func fail(code: Int?, reason: String, action: CloseAction) -> [Action] {
        failureReason = reason.isEmpty ? CloseCode.meaning(of: code) : reason
        var actions: [Action] = [.publishClosure(ConnectionClosure(code: code, reason: reason, action: action))]
        actions += ConnectionTimer.allCases.map { .cancelTimer($0) }
        actions += transition(to: .failed)
        return actions
    }

    private mutating func timerFired(_ timer: ConnectionTimer, now: Double) -> [Action] {
        switch timer {
        case .retry:
            guard state == .connecting || state == .unavailable else { return [] }
            return openAttempt()
        case .unavailable:
            guard state == .connecting else { return [] }
            return transition(to: .unavailable)
        case .handshake:
            guard state == .connecting || state == .unavailable else { return [] }
            return socketLost(
                code: nil, reason: "no handshake within \(format(configuration.handshakeTimeout)) s",
                closeOurSide: true)
        case .activity:
            guard state == .connected else { return [] }
            // Still waiting for the pong (a pong timeout longer than the activity timeout): keep the timer, or a
            // pong that comes after this would leave no timer watching the connection, and a later stall would go
            // unnoticed for good.
            if awaitingPong { return [.startTimer(.activity, seconds: activityTimeout)] }
            let idle = now - lastFrameAt
            if idle + 0.001 < activityTimeout {
                return [.startTimer(.activity, seconds: activityTimeout - idle)]
            }
            awaitingPong = true
            pingSentAt = now
            return [
                .sendPing, .startTimer(.pong, seconds: configuration.pongTimeout),
                .startTimer(.activity, seconds: activityTimeout),
            ]
        case .pong:
            guard state == .connected, awaitingPong else { return [] }
            return socketLost(
                code: nil, reason: "no pong within \(format(configuration.pongTimeout)) s", closeOurSide: true)
        }
    }

    private mutating func openAttempt() -> [Action] {
        attempt += 1
        refusal = nil
        return [
            .openSocket(attempt: attempt, useTLS: useTLS),
            .startTimer(.handshake, seconds: configuration.handshakeTimeout),
        ]
    }

    private mutating func transition(to next: ConnectionState, socketID: String? = nil) -> [Action] {
        guard next != state else { return [] }
        let change = StateChange(previous: state, current: next, socketID: next == .connected ? socketID : nil)
        state = next
        return [.publishState(change)]
    }

    private func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }
}
