import PushtopTestSupport
import Testing

@testable import PusherChannels

/// A server that refuses in the same write as its `101` (and ends the connection at once): the client reads the end
/// of its handshake, the refusal and the end of the connection together, and must still see the refusal, every
/// time (repeated: a race that loses the bytes after the `101` shows in a few tries).
@Suite(.timeLimit(.minutes(2))) struct RefusalWithTheUpgradeTests {
    static let tries = 50

    /// The first closure of a fresh client of `server`, and its errors until then.
    static func firstClosure(_ server: OneWriteUpgradeServer) async throws
        -> (closure: ConnectionClosure, errors: [(code: Int?, message: String)])
    {
        let client = PusherClient.loopbackTestClient(port: server.port)
        let recorder = EventRecorder(client)
        await client.connect()
        let event = try await recorder.wait("a closure", timeout: 5) {
            if case .closed = $0 { true } else { false }
        }
        await client.shutdown()
        guard case .closed(let closure) = event else { throw Failure.notAClosure }
        let errors = recorder.errors
        return (closure, errors)
    }

    enum Failure: Error { case notAClosure }

    @Test func aPusherErrorAndTheFINWithThe101AreACodeAndNoRetry() async throws {
        let server = try await OneWriteUpgradeServer.start([
            OneWriteUpgradeServer.refusal(4001, message: "App key WRONG does not exist")
        ])
        defer { server.stop() }
        for attempt in 1...Self.tries {
            let (closure, errors) = try await Self.firstClosure(server)
            #expect(errors.contains { $0.code == 4001 }, "try \(attempt): \(errors)")
            #expect(closure.code == 4001, "try \(attempt): \(closure)")
            #expect(closure.reason == "App key WRONG does not exist", "try \(attempt): \(closure)")
            #expect(closure.action == .refuse, "try \(attempt): \(closure)")
            #expect(server.upgrades == attempt, "try \(attempt): the refused client tried again")
        }
    }

    @Test func aCloseFrameWithThe101IsItsCodeAndReasonAndNoRetry() async throws {
        let server = try await OneWriteUpgradeServer.start([.close(code: 4009, reason: "Unauthorized connection")])
        defer { server.stop() }
        for attempt in 1...Self.tries {
            let (closure, _) = try await Self.firstClosure(server)
            #expect(closure.code == 4009, "try \(attempt): \(closure)")
            #expect(closure.reason == "Unauthorized connection", "try \(attempt): \(closure)")
            #expect(closure.action == .refuse, "try \(attempt): \(closure)")
            #expect(server.upgrades == attempt, "try \(attempt): the refused client tried again")
        }
    }

    @Test func aCloseFrameWithThe101AndNoFINIsStillItsCode() async throws {
        // The server waits for the client's close reply (a well-behaved server): the same code, and no retry.
        let server = try await OneWriteUpgradeServer.start(
            [.close(code: 4003, reason: "Application disabled")], thenClose: false)
        defer { server.stop() }
        for attempt in 1...10 {
            let (closure, _) = try await Self.firstClosure(server)
            #expect(closure.code == 4003 && closure.action == .refuse, "try \(attempt): \(closure)")
        }
    }
}

/// The rule behind it, on the state machine: a `pusher:error` before the handshake is the server's refusal, and a
/// socket that then ends without a close frame ends with its code (as pusher-js reads such a handshake).
@Suite struct HandshakeRefusalRuleTests {
    func connecting() -> ConnectionStateMachine {
        var m = ConnectionStateMachine(
            configuration: ConnectionConfiguration(useTLS: false, reconnect: ReconnectPolicy(jitter: 0)),
            random: { 0.5 })
        _ = m.handle(.connectRequested, now: 0)
        return m
    }

    func closure(_ actions: [ConnectionStateMachine.Action]) -> ConnectionClosure? {
        actions.lazy.compactMap { if case .publishClosure(let c) = $0 { return c } else { return nil } }.first
    }

    @Test func givenConnectingWhen4001ThenADropThenRefused() {
        var m = connecting()
        #expect(m.handle(.errorReceived(attempt: 1, code: 4001, message: "no such app"), now: 0).isEmpty)
        let actions = m.handle(.socketClosed(attempt: 1, code: nil, reason: "connection lost"), now: 0)
        #expect(closure(actions) == ConnectionClosure(code: 4001, reason: "no such app", action: .refuse))
        #expect(m.state == .failed)
        #expect(!actions.contains { if case .openSocket = $0 { true } else { false } })
    }

    @Test func givenConnectingWhen4200ThenADropThenReconnectAtOnce() {
        var m = connecting()
        _ = m.handle(.errorReceived(attempt: 1, code: 4200, message: "reconnect"), now: 0)
        let actions = m.handle(.socketClosed(attempt: 1, code: nil, reason: "connection lost"), now: 0)
        #expect(closure(actions)?.action == .reconnectNow)
    }

    @Test func aCloseFrameSCodeWinsOverTheRefusal() {
        var m = connecting()
        _ = m.handle(.errorReceived(attempt: 1, code: 4001, message: "no such app"), now: 0)
        let actions = m.handle(.socketClosed(attempt: 1, code: 4100, reason: "over capacity"), now: 0)
        #expect(closure(actions) == ConnectionClosure(code: 4100, reason: "over capacity", action: .backOff))
    }

    @Test func anErrorAfterTheHandshakeOrOnAnOldSocketOrWithoutACodeIsNotARefusal() {
        var m = connecting()
        _ = m.handle(.errorReceived(attempt: 1, code: nil, message: "no code"), now: 0)
        _ = m.handle(.errorReceived(attempt: 0, code: 4001, message: "an older socket"), now: 0)
        var actions = m.handle(.socketClosed(attempt: 1, code: nil, reason: "connection lost"), now: 0)
        #expect(closure(actions)?.action == .followPolicy)
        // The next socket starts clean, connects, and a pusher:error then (a refused sign-in, say) changes no drop.
        _ = m.handle(.timerFired(.retry), now: 1)
        _ = m.handle(.established(attempt: 2, socketID: "1.1", activityTimeout: 120), now: 1)
        _ = m.handle(.errorReceived(attempt: 2, code: 4009, message: "sign-in refused"), now: 2)
        actions = m.handle(.socketClosed(attempt: 2, code: nil, reason: "connection lost"), now: 3)
        #expect(closure(actions) == ConnectionClosure(code: nil, reason: "connection lost", action: .followPolicy))
    }
}
