import Testing

@testable import PusherChannels

/// The connection rules, read like the seeds: "given connected, when close code X arrives, then …".
@Suite struct ConnectionStateMachineTests {
    typealias Action = ConnectionStateMachine.Action

    func machine(
        _ policy: ReconnectPolicy = ReconnectPolicy(jitter: 0), tls: Bool = true,
        activity: Double? = nil
    ) -> ConnectionStateMachine {
        ConnectionStateMachine(
            configuration: ConnectionConfiguration(
                useTLS: tls, activityTimeout: activity, pongTimeout: 30, reconnect: policy),
            random: { 0.5 })
    }

    /// A machine that is connected on attempt 1.
    func connected(_ policy: ReconnectPolicy = ReconnectPolicy(jitter: 0), tls: Bool = true) -> ConnectionStateMachine {
        var m = machine(policy, tls: tls)
        _ = m.handle(.connectRequested, now: 0)
        _ = m.handle(.established(attempt: 1, socketID: "1.1", activityTimeout: 120), now: 0)
        return m
    }

    func states(_ actions: [Action]) -> [ConnectionState] {
        actions.compactMap { if case .publishState(let c) = $0 { return c.current } else { return nil } }
    }

    func retryDelay(_ actions: [Action]) -> Double? {
        actions.lazy.compactMap { if case .startTimer(.retry, let s) = $0 { return s } else { return nil } }.first
    }

    @Test func connectOpensASocketAndPublishesConnecting() {
        var m = machine()
        let actions = m.handle(.connectRequested, now: 0)
        #expect(states(actions) == [.connecting])
        #expect(actions.contains(.openSocket(attempt: 1, useTLS: true)))
        #expect(actions.contains(.startTimer(.unavailable, seconds: 10)))
        #expect(m.handle(.connectRequested, now: 0).isEmpty, "a second connect while connecting does nothing")
    }

    @Test func establishedConnectsWithSocketIDAndTheSmallerActivityTimeout() {
        var m = machine(activity: 30)
        _ = m.handle(.connectRequested, now: 0)
        let actions = m.handle(.established(attempt: 1, socketID: "12.34", activityTimeout: 120), now: 0)
        #expect(
            actions.contains(.publishState(StateChange(previous: .connecting, current: .connected, socketID: "12.34"))))
        #expect(actions.contains(.connectionEstablished(socketID: "12.34")))
        #expect(actions.contains(.startTimer(.activity, seconds: 30)))
        #expect(m.activityTimeout == 30)
    }

    @Test func serverActivityTimeoutWinsWhenSmaller() {
        var m = machine(activity: 60)
        _ = m.handle(.connectRequested, now: 0)
        _ = m.handle(.established(attempt: 1, socketID: "1.1", activityTimeout: 20), now: 0)
        #expect(m.activityTimeout == 20)
    }

    @Test(arguments: [4001, 4003, 4004, 4009, 4099, 4300, 4301, 4500])
    func refusedCodesFailWithoutReconnecting(code: Int) {
        var m = connected()
        let actions = m.handle(.socketClosed(attempt: 1, code: code, reason: "nope"), now: 1)
        #expect(states(actions) == [.failed])
        #expect(retryDelay(actions) == nil)
        #expect(!actions.contains { if case .openSocket = $0 { return true } else { return false } })
        #expect(actions.contains(.publishClosure(ConnectionClosure(code: code, reason: "nope", action: .refuse))))
        #expect(m.failureReason == "nope")
    }

    @Test(arguments: [4200, 4201, 4202, 4299])
    func reconnectNowCodesRetryAtOnce(code: Int) {
        var m = connected()
        let actions = m.handle(.socketClosed(attempt: 1, code: code, reason: ""), now: 1)
        #expect(states(actions) == [.connecting])
        #expect(retryDelay(actions) == 0)
        #expect(actions.contains(.publishConnectingIn(0)))
        #expect(actions.contains(.connectionLost))
        let retry = m.handle(.timerFired(.retry), now: 1)
        #expect(retry.contains(.openSocket(attempt: 2, useTLS: true)))
    }

    @Test(arguments: [4100, 4150, 4199])
    func backOffCodesWaitThePolicyDelay(code: Int) {
        var m = connected(ReconnectPolicy(kind: .exponential, minDelay: 2, maxDelay: 60, jitter: 0))
        let actions = m.handle(.socketClosed(attempt: 1, code: code, reason: ""), now: 1)
        #expect(retryDelay(actions) == 2)
        #expect(actions.contains(.publishConnectingIn(2)))
    }

    /// The jitter drawn at its lowest (random 0, -20 %) or a policy shorter than a second once let a 4100 come
    /// back after 0.8 s; the protocol asks for 1 s or more.
    @Test(arguments: [ReconnectPolicy(), ReconnectPolicy(minDelay: 0.1, jitter: 0)])
    func backOffCodesNeverWaitLessThanASecond(policy: ReconnectPolicy) {
        func closed(code: Int?) -> Double? {
            var m = ConnectionStateMachine(
                configuration: ConnectionConfiguration(useTLS: true, pongTimeout: 30, reconnect: policy),
                random: { 0 })
            _ = m.handle(.connectRequested, now: 0)
            _ = m.handle(.established(attempt: 1, socketID: "1.1", activityTimeout: 120), now: 0)
            return retryDelay(m.handle(.socketClosed(attempt: 1, code: code, reason: ""), now: 1))
        }
        #expect(closed(code: 4100) == 1)
        #expect(closed(code: nil).map { $0 < 1 } == true, "a dropped connection keeps the policy's own delay")
    }

    @Test func networkDropsFollowThePolicy() {
        var m = connected(ReconnectPolicy(kind: .linear, minDelay: 1.5, maxDelay: 60, jitter: 0))
        #expect(retryDelay(m.handle(.socketClosed(attempt: 1, code: nil, reason: "reset"), now: 1)) == 1.5)
        _ = m.handle(.timerFired(.retry), now: 2)
        #expect(retryDelay(m.handle(.socketClosed(attempt: 2, code: nil, reason: "refused"), now: 3)) == 3.0)
        _ = m.handle(.timerFired(.retry), now: 4)
        #expect(retryDelay(m.handle(.socketClosed(attempt: 3, code: 1006, reason: ""), now: 5)) == 4.5)
    }

    @Test func code4000RetriesOnceOverTLS() {
        var m = machine(tls: false)
        _ = m.handle(.connectRequested, now: 0)
        let first = m.handle(.socketClosed(attempt: 1, code: 4000, reason: "TLS only"), now: 0)
        #expect(first.contains(.openSocket(attempt: 2, useTLS: true)))
        #expect(m.useTLS)
        let second = m.handle(.socketClosed(attempt: 2, code: 4000, reason: "TLS only"), now: 0)
        #expect(states(second) == [.failed], "a second 4000 is final")
    }

    @Test func code4000OnATLSConnectionFails() {
        var m = connected(tls: true)
        #expect(states(m.handle(.socketClosed(attempt: 1, code: 4000, reason: ""), now: 0)) == [.failed])
    }

    @Test func givesUpAfterMaxRetriesAndSaysSo() {
        var m = machine(ReconnectPolicy(kind: .exponential, minDelay: 1, maxDelay: 8, maxRetries: 2, jitter: 0))
        _ = m.handle(.connectRequested, now: 0)
        #expect(retryDelay(m.handle(.socketClosed(attempt: 1, code: nil, reason: "refused"), now: 0)) == 1)
        _ = m.handle(.timerFired(.retry), now: 1)
        #expect(retryDelay(m.handle(.socketClosed(attempt: 2, code: nil, reason: "refused"), now: 1)) == 2)
        _ = m.handle(.timerFired(.retry), now: 3)
        let last = m.handle(.socketClosed(attempt: 3, code: nil, reason: "refused"), now: 3)
        #expect(states(last) == [.failed])
        #expect(m.failureReason?.contains("gave up after 2 failed retries") == true)
        #expect(
            last.contains { if case .publishClosure(let c) = $0 { return c.action == .giveUp } else { return false } })
    }

    @Test func policyNoneNeverReconnects() {
        var m = connected(ReconnectPolicy(kind: .none))
        let actions = m.handle(.socketClosed(attempt: 1, code: 4200, reason: ""), now: 0)
        #expect(states(actions) == [.failed])
        #expect(retryDelay(actions) == nil)
        #expect(m.failureReason?.contains("reconnection is off") == true)
    }

    @Test func zeroMaxRetriesRetriesForever() {
        var m = machine(ReconnectPolicy(kind: .exponential, minDelay: 1, maxDelay: 4, maxRetries: 0, jitter: 0))
        _ = m.handle(.connectRequested, now: 0)
        for attempt in 1...50 {
            let actions = m.handle(.socketClosed(attempt: attempt, code: nil, reason: ""), now: 0)
            #expect(retryDelay(actions) == min(4, Double(1 << min(attempt - 1, 10))))
            _ = m.handle(.timerFired(.retry), now: 0)
        }
        #expect(m.state != .failed)
    }

    @Test func unavailableAfterTheTimeoutWhileRetriesGoOn() {
        var m = machine()
        _ = m.handle(.connectRequested, now: 0)
        _ = m.handle(.socketClosed(attempt: 1, code: nil, reason: ""), now: 0)
        #expect(states(m.handle(.timerFired(.unavailable), now: 10)) == [.unavailable])
        let retry = m.handle(.timerFired(.retry), now: 11)
        #expect(retry.contains(.openSocket(attempt: 2, useTLS: true)), "retries continue while unavailable")
        #expect(m.state == .unavailable)
        let ok = m.handle(.established(attempt: 2, socketID: "2.2", activityTimeout: nil), now: 12)
        #expect(ok.contains(.publishState(StateChange(previous: .unavailable, current: .connected, socketID: "2.2"))))
    }

    @Test func attemptCounterResetsAfterASuccessfulConnection() {
        var m = machine(ReconnectPolicy(kind: .exponential, minDelay: 1, maxDelay: 60, maxRetries: 2, jitter: 0))
        _ = m.handle(.connectRequested, now: 0)
        _ = m.handle(.socketClosed(attempt: 1, code: nil, reason: ""), now: 0)
        _ = m.handle(.timerFired(.retry), now: 1)
        _ = m.handle(.established(attempt: 2, socketID: "2.2", activityTimeout: nil), now: 1)
        #expect(m.failedAttempts == 0)
        #expect(
            retryDelay(m.handle(.socketClosed(attempt: 2, code: nil, reason: ""), now: 2)) == 1,
            "back to the first delay")
    }

    @Test func explicitDisconnectNeverReconnects() {
        var m = connected()
        let actions = m.handle(.disconnectRequested, now: 0)
        #expect(states(actions) == [.disconnected])
        #expect(actions.contains(.closeSocket(code: 1000, reason: "disconnect requested")))
        #expect(
            m.handle(.socketClosed(attempt: 1, code: 1000, reason: ""), now: 0).isEmpty, "the old socket is ignored")
        #expect(m.handle(.timerFired(.retry), now: 5).isEmpty)
    }

    @Test func disconnectWhileWaitingToRetryCancelsTheRetry() {
        var m = connected()
        _ = m.handle(.socketClosed(attempt: 1, code: nil, reason: ""), now: 0)
        let actions = m.handle(.disconnectRequested, now: 0)
        #expect(actions.contains(.cancelTimer(.retry)))
        #expect(m.handle(.timerFired(.retry), now: 1).isEmpty)
        #expect(m.state == .disconnected)
    }

    @Test func activityTimeoutSendsAPingAndAMissingPongReconnects() {
        var m = connected()
        #expect(
            m.handle(.timerFired(.activity), now: 60) == [.startTimer(.activity, seconds: 60)],
            "not idle long enough: wait the rest")
        let ping = m.handle(.timerFired(.activity), now: 120)
        #expect(ping.contains(.sendPing))
        #expect(ping.contains(.startTimer(.pong, seconds: 30)))
        let dead = m.handle(.timerFired(.pong), now: 150)
        #expect(dead.contains(.closeSocket(code: 1000, reason: "no pong within 30 s")))
        #expect(states(dead) == [.connecting])
        #expect(retryDelay(dead) != nil)
    }

    @Test func aRequestedPingIsTimedByItsPong() {
        var m = connected()
        #expect(m.handle(.pingRequested, now: 10) == [.sendPing])
        #expect(m.handle(.pingRequested, now: 11).isEmpty, "one ping at a time")
        #expect(m.handle(.pongReceived(attempt: 1), now: 10.25) == [.publishPong(roundTrip: 0.25)])
        #expect(m.pingSentAt == nil)
        #expect(m.handle(.pongReceived(attempt: 1), now: 12).isEmpty, "a pong nobody asked for times nothing")
        var idle = machine()
        #expect(idle.handle(.pingRequested, now: 0).isEmpty, "no ping while not connected")
    }

    @Test func theIdlePingIsTimedAndALostConnectionForgetsThePing() {
        var m = connected()
        _ = m.handle(.timerFired(.activity), now: 120)
        #expect(m.pingSentAt == 120)
        #expect(m.handle(.pongReceived(attempt: 1), now: 120.5) == [.publishPong(roundTrip: 0.5)])
        _ = m.handle(.pingRequested, now: 130)
        _ = m.handle(.socketClosed(attempt: 1, code: 4200, reason: ""), now: 131)
        #expect(m.pingSentAt == nil)
        #expect(m.handle(.pongReceived(attempt: 1), now: 132).isEmpty, "a stale socket's pong")
    }

    /// A pong timeout longer than the activity timeout (`watch --activity-timeout 1 --pong-timeout 3`), and a pong that
    /// comes after the activity timer fired again: the connection is still watched, so a stall after it is noticed.
    @Test func aPongLaterThanTheActivityTimeoutLeavesTheConnectionWatched() {
        var m = ConnectionStateMachine(
            configuration: ConnectionConfiguration(
                useTLS: true, activityTimeout: 1, pongTimeout: 3, reconnect: ReconnectPolicy(jitter: 0)),
            random: { 0.5 })
        _ = m.handle(.connectRequested, now: 0)
        _ = m.handle(.established(attempt: 1, socketID: "1.1", activityTimeout: 120), now: 0)
        #expect(m.handle(.timerFired(.activity), now: 1).contains(.sendPing))
        #expect(m.handle(.timerFired(.activity), now: 2) == [.startTimer(.activity, seconds: 1)], "armed again")
        #expect(m.handle(.frameReceived(attempt: 1), now: 2.5) == [.cancelTimer(.pong)], "the late pong")
        // Then the server goes silent: the next activity timer pings, and the missing pong reconnects.
        #expect(m.handle(.timerFired(.activity), now: 3.5).contains(.sendPing))
        let dead = m.handle(.timerFired(.pong), now: 6.5)
        #expect(dead.contains(.closeSocket(code: 1000, reason: "no pong within 3 s")))
        #expect(states(dead) == [.connecting])
    }

    @Test func anyFrameAnswersAPing() {
        var m = connected()
        _ = m.handle(.timerFired(.activity), now: 120)
        #expect(m.handle(.frameReceived(attempt: 1), now: 121) == [.cancelTimer(.pong)])
        #expect(m.handle(.timerFired(.pong), now: 150).isEmpty)
        #expect(m.state == .connected)
    }

    @Test func framesKeepTheConnectionFromPinging() {
        var m = connected()
        _ = m.handle(.frameReceived(attempt: 1), now: 100)
        #expect(m.handle(.timerFired(.activity), now: 120) == [.startTimer(.activity, seconds: 100)])
    }

    @Test func handshakeTimeoutClosesAndRetries() {
        var m = machine()
        _ = m.handle(.connectRequested, now: 0)
        let actions = m.handle(.timerFired(.handshake), now: 10)
        #expect(actions.contains(.closeSocket(code: 1000, reason: "no handshake within 10 s")))
        #expect(retryDelay(actions) != nil)
        #expect(m.handle(.socketClosed(attempt: 1, code: nil, reason: ""), now: 10).isEmpty, "stale socket")
    }

    @Test func staleSocketEventsAreIgnored() {
        var m = connected()
        #expect(m.handle(.established(attempt: 0, socketID: "x", activityTimeout: nil), now: 0).isEmpty)
        #expect(m.handle(.socketClosed(attempt: 0, code: 4001, reason: ""), now: 0).isEmpty)
        #expect(m.state == .connected)
    }

    @Test func pusherErrorsAloneDoNotReconnect() {
        // `pusher:error` is not an input of the machine at all: only close codes and transport failures decide.
        var m = connected()
        _ = m.handle(.frameReceived(attempt: 1), now: 1)
        #expect(m.state == .connected)
    }

    @Test func reconnectAfterFailedRestartsFromScratch() {
        var m = connected()
        _ = m.handle(.socketClosed(attempt: 1, code: 4001, reason: ""), now: 0)
        let actions = m.handle(.connectRequested, now: 1)
        #expect(states(actions) == [.connecting])
        #expect(actions.contains(.openSocket(attempt: 2, useTLS: true)))
    }

    /// The default policy keeps trying, as pusher-js and PusherSwift do: a hundred failures later it is still
    /// retrying (every 60 s at most, `unavailable` meanwhile), and a server that comes back is connected to.
    @Test func byDefaultRetriesForeverWithTheDelayCappedAtAMinute() {
        var m = ConnectionStateMachine(configuration: ConnectionConfiguration(), random: { 0.5 })
        _ = m.handle(.connectRequested, now: 0)
        var delays: [Double] = []
        for attempt in 1...100 {
            let actions = m.handle(.socketClosed(attempt: attempt, code: nil, reason: "refused"), now: 0)
            #expect(!states(actions).contains(.failed), "attempt \(attempt)")
            delays.append(retryDelay(actions) ?? -1)
            if attempt == 1 { _ = m.handle(.timerFired(.unavailable), now: 10) }
            _ = m.handle(.timerFired(.retry), now: 0)
        }
        #expect(m.state == .unavailable)
        #expect(m.failedAttempts == 100)
        #expect(Array(delays.prefix(7)) == [1, 2, 4, 8, 16, 32, 60])
        #expect(delays.dropFirst(6).allSatisfy { $0 == 60 })
        let back = m.handle(.established(attempt: 101, socketID: "9.9", activityTimeout: nil), now: 0)
        #expect(states(back) == [.connected])
        #expect(m.failedAttempts == 0)
    }

    /// Only a refusal ends the default policy's retries: 4000-4099 mean "do not come back".
    @Test func byDefaultARefusalStillFails() {
        var m = ConnectionStateMachine(configuration: ConnectionConfiguration(), random: { 0.5 })
        _ = m.handle(.connectRequested, now: 0)
        _ = m.handle(.established(attempt: 1, socketID: "1.1", activityTimeout: nil), now: 0)
        #expect(states(m.handle(.socketClosed(attempt: 1, code: 4001, reason: "no such app"), now: 0)) == [.failed])
    }
}
