import PushtopConformance
import PushtopProxy

/// An outage: the server is unreachable for a while. The client keeps trying without a storm of attempts, and comes
/// back when the server does.
enum OutageCase {
    /// How long the proxy refuses every connection.
    static let outage = Duration.seconds(15)

    static let noStorm = ClientCase(
        "client.reconnect.no-storm-during-outage", .should, ClientDocs.connection,
        "While the server is unreachable it retries at most about once a second, and reconnects when the server is back."
    ) { context, connection throws(CaseFailure) in
        let seconds = Seconds.value(outage)
        let rule = context.fault(FaultRule(action: .outage(seconds: seconds)))
        defer { context.removeFault(rule) }
        guard let closedAt = await context.close(connection, code: 1006) else {
            return .notObserved("the connection did not close")
        }
        let outageEnds = closedAt + outage
        await context.watch(for: outageEnds - .now)
        let attempts = await context.log.attempts(after: closedAt).filter { $0 < outageEnds }
        let perMinute = Double(attempts.count) * 60 / seconds
        let evidence = attempts.prefix(30).map { "\(context.at($0)) connection attempt (refused: outage)" }
        // At most one attempt a second on average (Pusher's back-off asks for 1 s or more), plus the first.
        guard Double(attempts.count) <= seconds + 1 else {
            throw CaseFailure(
                expected: "at most about one attempt a second while the server is unreachable",
                got: "\(attempts.count) attempts in \(Int(seconds)) s (\(Int(perMinute)) a minute)", evidence: evidence)
        }
        let back = await context.wait(upTo: .seconds(60)) { $0.firstEstablished(after: outageEnds) != nil }
        guard back, let next = await context.log.firstEstablished(after: outageEnds) else {
            throw CaseFailure(
                expected: "a new connection once the server is back",
                got: "none within 60 s of the outage's end (\(attempts.count) attempts during it)", evidence: evidence)
        }
        return .pass(
            "\(attempts.count) attempts in the \(Int(seconds)) s outage (\(Int(perMinute)) a minute); back "
                + "\(Seconds.format(next.openedAt - outageEnds)) s after it ended")
    }
}
