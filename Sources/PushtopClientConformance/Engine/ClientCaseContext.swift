import PushtopConformance
import PushtopProxy
import Synchronization

/// What a client case works with: the wire as the proxy saw it, the proxy (to send a ping, to apply a fault), the
/// settings, and the episodes earlier cases provoked (a case that judges the reconnection after a 4200 reuses
/// the one the 4200 case caused).
package final class ClientCaseContext: Sendable {
    package let wire: ClientWire
    let proxy: ProxyServer
    package let settings: ClientJudgeSettings
    /// When the run started: evidence times count from it.
    package let origin: ContinuousClock.Instant
    /// When the run must end.
    package let deadline: ContinuousClock.Instant
    private let episodes = Mutex<[String: Reconnection]>([:])

    init(wire: ClientWire, proxy: ProxyServer, settings: ClientJudgeSettings, origin: ContinuousClock.Instant) {
        self.wire = wire
        self.proxy = proxy
        self.settings = settings
        self.origin = origin
        deadline = origin + settings.timeLimit
    }

    package var log: WireLog { get async { await wire.log } }

    /// Waits at most `duration` (and never past the run's deadline) for `condition`; whether it came to hold.
    package func wait(upTo duration: Duration, for condition: @escaping @Sendable (WireLog) -> Bool) async -> Bool {
        await wire.wait(until: min(.now + duration, deadline), for: condition)
    }

    /// Lets `duration` pass (never past the run's deadline), for cases that judge what did *not* happen.
    package func watch(for duration: Duration) async {
        try? await Task.sleep(until: min(.now + duration, deadline), clock: .continuous)
    }

    /// The client's current connection once it is settled: established, and nothing sent for a second (its
    /// subscriptions made). `nil` when there is none before `within` runs out.
    package func settledConnection(within: Duration = .seconds(15)) async -> WireConnection? {
        let until = min(.now + within, deadline)
        while true {
            let log = await wire.log
            if let current = log.current {
                let lastSent = current.sent.last?.at ?? current.openedAt
                let quiet = ContinuousClock.now - max(lastSent, current.established?.at ?? current.openedAt)
                if quiet >= .seconds(1) { return current }
            }
            guard ContinuousClock.now < until else { return nil }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The log of the whole run once the client's connection has settled (or 15 s passed without one): a case run
    /// alone, before anything else had the client connect, judges what the client sends first too.
    ///
    /// A client that was here and has gone (after the 4009 case it must not come back) is not waited for: its
    /// connections are the whole evidence, and each case that reads them would otherwise wait its 15 s for nothing.
    package func settledLog() async -> WireLog {
        let log = await wire.log
        if log.current == nil, log.connections.contains(where: { !$0.isOpen }) { return log }
        _ = await settledConnection()
        return await wire.log
    }

    /// The seconds of silence after which `connection`'s client must ping: the activity_timeout its
    /// pusher:connection_established announced, else the one the judge announces.
    package func announcedActivityTimeout(_ connection: WireConnection) -> Int {
        connection.established?.data?["activity_timeout"]?.intValue ?? settings.activityTimeout
    }

    /// Applies `action` to connection `connection` once (a fault rule scoped to its socket id).
    package func fault(_ action: FaultRule.Action, on connection: WireConnection) -> Int {
        proxy.addFault(FaultRule(action: action, socketID: connection.socketID, times: 1))
    }

    /// Drops the client's connection whatever faults hold it (a stalled connection its client kept).
    package func drop(_ connection: WireConnection) { proxy.dropClient(connection: connection.number) }

    /// Applies a rule as given (an outage, a refusal of the next subscription).
    package func fault(_ rule: FaultRule) -> Int { proxy.addFault(rule) }

    package func removeFault(_ id: Int) { proxy.removeFault(id: id) }

    /// Sends `text` to the client on `connection` as if the server had.
    package func send(_ text: String, to connection: WireConnection) -> Bool {
        proxy.sendToClient(connection: connection.number, text: text)
    }

    /// Closes `connection` with `code` and waits until its socket ended; when the close was sent (or `nil`: the
    /// socket did not end). Not when it ended: the socket ends after the close handshake and the upstream's side, and
    /// a client that reconnects at once has opened its next connection by then.
    package func close(_ connection: WireConnection, code: Int) async -> ContinuousClock.Instant? {
        let number = connection.number
        let sent = ContinuousClock.now
        _ = fault(.close(code: code), on: connection)
        guard await wait(upTo: .seconds(10), for: { $0.connection(number)?.endedAt != nil }) else { return nil }
        return sent
    }

    /// The reconnection that followed closing the client's connection with `code`: caused once per `name`, reused
    /// by every case that judges it.
    package func reconnection(after code: Int, window: Duration, name: String? = nil) async -> Reconnection? {
        let key = name ?? "\(code)"
        if let cached = episodes.withLock({ $0[key] }) { return cached }
        guard let before = await settledConnection() else { return nil }
        guard let closedAt = await close(before, code: code) else { return nil }
        _ = await wait(upTo: window) { $0.firstEstablished(after: closedAt) != nil }
        let log = await wire.log
        var episode = Reconnection(
            code: code, before: log.connection(before.number) ?? before, closedAt: closedAt, after: nil)
        if let after = log.firstEstablished(after: closedAt) {
            _ = await settledConnection(within: .seconds(10))
            episode.after = await wire.log.connection(after.number)
        }
        let finished = episode
        episodes.withLock { $0[key] = finished }
        return finished
    }

    /// Evidence: a connection's messages since the run started.
    package func evidence(_ connections: WireConnection?..., limit: Int = 10) -> [String] {
        connections.compactMap { $0 }.flatMap { $0.evidence(since: origin, limit: limit) }
    }

    package func at(_ instant: ContinuousClock.Instant) -> String { Seconds.since(origin, instant) }
}

/// A connection closed by the judge with a code, and the connection the client opened next.
package struct Reconnection: Sendable {
    package let code: Int
    /// The closed connection, as it ended.
    package let before: WireConnection
    package let closedAt: ContinuousClock.Instant
    /// The first connection established after the close, settled (its subscriptions made); `nil`: none came.
    package var after: WireConnection?

    /// How long after the close the client's next connection opened.
    package var delay: Duration? { after.map { $0.openedAt - closedAt } }
}
