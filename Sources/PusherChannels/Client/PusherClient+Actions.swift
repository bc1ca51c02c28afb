import Logging
import PusherProtocol

import struct NIOCore.TimeAmount

extension PusherClient {
    // MARK: - Performing the state machine's actions

    func perform(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions {
            switch action {
            case .openSocket(let attempt, let useTLS):
                openSocket(attempt: attempt, useTLS: useTLS)
            case .closeSocket(let code, let reason):
                connection?.close(code: code, reason: reason)
                connection = nil
            case .sendPing:
                send(PusherMessage(event: PusherEventName.ping, data: .object([:])))
            case .publishPong(let roundTrip):
                emit(.pong(roundTrip: roundTrip))
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
                logger.info(
                    "connection closed: \(closure.code.map(String.init) ?? "no code") \(closure.meaning); \(closure.action.rawValue)"
                )
                emit(.closed(closure))
            case .connectionEstablished:
                // A sign-in goes first: the channels subscribe once it succeeded or failed.
                if !startSignIn(holdingChannels: true) {
                    for name in channelOrder { startSubscription(name) }
                }
            case .connectionLost:
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

    func openSocket(attempt: Int, useTLS: Bool) {
        connection?.close(code: 1000, reason: "replaced")
        let url = options.url(useTLS: useTLS)
        logger.debug("connecting to \(url)")
        let loop = eventLoop
        liveSockets.insert(attempt)
        connection = transport.open(url: url, on: loop, settings: options.transport, tap: tap) { [weak self] events in
            guard let self else { return }
            // The real transport calls on `loop`; a scripted one may call from anywhere.
            if loop.inEventLoop {
                self.assumeIsolated { $0.receive(events, attempt: attempt) }
            } else {
                loop.execute { self.assumeIsolated { $0.receive(events, attempt: attempt) } }
            }
        }
    }

    func startTimer(_ timer: ConnectionTimer, seconds: Double) {
        timers[timer]?.task.cancel()
        timerToken += 1
        let token = timerToken
        let task = eventLoop.scheduleTask(in: .nanoseconds(Int64(max(0, seconds) * 1e9))) { [weak self] in
            guard let self else { return }
            self.assumeIsolated { $0.timerFired(timer, token: token) }
        }
        timers[timer] = (token, task)
    }

    func timerFired(_ timer: ConnectionTimer, token: Int) {
        guard timers[timer]?.token == token else { return }
        timers[timer] = nil
        perform(machine.handle(.timerFired(timer), now: now()))
        flush()
    }
}
