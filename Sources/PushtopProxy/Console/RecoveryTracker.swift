import NIOCore
import PusherProtocol
import PushtopServer
import Synchronization

/// What each client hit by a fault did next: reconnected (how long after the fault), resubscribed to the channels
/// it was in (private and presence ones re-authorized, as the upstream accepted them), or not within the proxy's
/// recovery timeout. Each outcome is a `recovered` row and a line of the report.
///
/// A reconnection is matched to its fault by the client's host and its library and version (the URL's `client`
/// and `version`): the first connection after the fault from the same place is taken for the same client.
package final class RecoveryTracker: Sendable {
    /// One client hit by a fault and what became of it.
    package struct Outcome: Sendable, Hashable {
        package var fault: String
        package var previousSocketID: String?
        package var socketID: String?
        package var channels: [String]
        package var reconnectMs: Int64?
        package var resubscribeMs: Int64?
        /// Channels not resubscribed in time; `nil` until the outcome is known.
        package var missing: [String]
        package var reconnected: Bool { socketID != nil }
        package var recovered: Bool { reconnected && missing.isEmpty }
    }

    private struct Case {
        let id: Int
        var outcome: Outcome
        let at: ContinuousClock.Instant
        let remoteHost: String
        let client: String?
        let version: String?
        var relay: ObjectIdentifier?
        var missing: Set<String>
        var done = false
    }

    private struct State {
        var cases: [Case] = []
        var nextID = 1
    }

    private let state = Mutex(State())
    private let timeout: Duration
    private let post: @Sendable (ConsoleRow) -> Void

    init(timeout: Duration, post: @escaping @Sendable (ConsoleRow) -> Void) {
        self.timeout = timeout
        self.post = post
    }

    /// Every outcome so far (the open ones too, as they stand).
    package var outcomes: [(outcome: Outcome, done: Bool)] {
        state.withLock { state in state.cases.map { ($0.outcome, $0.done) } }
    }

    /// A fault hit `relay`'s client.
    func affected(_ relay: Relay, fault: String) {
        let channels = relay.channels.sorted()
        let id = state.withLock { state -> Int in
            let id = state.nextID
            state.nextID += 1
            state.cases.append(
                Case(
                    id: id,
                    outcome: Outcome(
                        fault: fault, previousSocketID: relay.socketID, channels: channels, missing: channels),
                    at: .now, remoteHost: relay.remoteHost, client: relay.info.clientLibrary,
                    version: relay.info.clientVersion, missing: Set(channels)))
            return id
        }
        let nanoseconds = Relay.milliseconds(timeout) * 1_000_000
        relay.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in expire(id) }
    }

    /// A new connection: it is the reconnection of the oldest waiting client from the same host and library.
    func connected(_ relay: Relay) {
        let now = ContinuousClock.now
        let done = state.withLock { state -> Case? in
            guard
                let index = state.cases.firstIndex(where: {
                    !$0.done && $0.relay == nil && $0.remoteHost == relay.remoteHost
                        && $0.client == relay.info.clientLibrary && $0.version == relay.info.clientVersion
                        && $0.outcome.previousSocketID != relay.socketID
                })
            else { return nil }
            state.cases[index].relay = ObjectIdentifier(relay)
            state.cases[index].outcome.socketID = relay.socketID
            state.cases[index].outcome.reconnectMs = Relay.milliseconds(now - state.cases[index].at)
            guard state.cases[index].missing.isEmpty else { return nil }
            state.cases[index].done = true
            return state.cases[index]
        }
        if let done { report(done) }
    }

    /// `relay` is now in `channel`.
    func subscribed(_ relay: Relay, channel: String) {
        let now = ContinuousClock.now
        let key = ObjectIdentifier(relay)
        let done = state.withLock { state -> Case? in
            guard let index = state.cases.firstIndex(where: { !$0.done && $0.relay == key }) else { return nil }
            state.cases[index].missing.remove(channel)
            state.cases[index].outcome.missing = state.cases[index].missing.sorted()
            guard state.cases[index].missing.isEmpty else { return nil }
            state.cases[index].outcome.resubscribeMs = Relay.milliseconds(now - state.cases[index].at)
            state.cases[index].done = true
            return state.cases[index]
        }
        if let done { report(done) }
    }

    /// A relayed connection ended (nothing to do: a reconnection may still come).
    func disconnected(_ relay: Relay) {}

    private func expire(_ id: Int) {
        let done = state.withLock { state -> Case? in
            guard let index = state.cases.firstIndex(where: { $0.id == id && !$0.done }) else { return nil }
            state.cases[index].done = true
            return state.cases[index]
        }
        if let done { report(done) }
    }

    private func report(_ done: Case) {
        var row = ConsoleRow(type: .recovered, timeMs: ConsoleClock.nowMs())
        let outcome = done.outcome
        row.socketID = outcome.socketID
        row.previousSocketID = outcome.previousSocketID
        row.fault = outcome.fault
        row.channels = outcome.channels
        row.reconnectMs = outcome.reconnectMs
        row.resubscribeMs = outcome.resubscribeMs
        if !outcome.reconnected {
            row.problem = "not_reconnected"
            row.reason = "no reconnection within \(Relay.milliseconds(timeout) / 1000) s"
        } else if !outcome.missing.isEmpty {
            row.problem = "not_resubscribed"
            row.reason = "not resubscribed: \(outcome.missing.joined(separator: ", "))"
        }
        post(row)
    }
}
