import PushtopConformance
import PushtopProxy

/// What a client does after other closes: 4100 (back off), a dropped connection, an outage, 4009 (do not come back
/// unchanged), and a refused subscription (which closes nothing).
enum ClosingCases {
    static let subscriptionError = ClientCase(
        "client.subscription.survives-refusal", .must, ClientDocs.subscription,
        "A refused subscription (pusher:subscription_error) neither closes the connection nor is retried in a loop."
    ) { context, connection throws(CaseFailure) in
        // An app's own channel: `#server-to-user-…` is the library's, subscribed after sign-in.
        let held = connection.channelsHeld.sorted()
        guard let channel = held.first(where: { !$0.hasPrefix("#") }) ?? held.first else {
            return .notObserved("the client was in no channel, so no subscription could be refused")
        }
        let rule = context.fault(FaultRule(action: .refuseSubscriptions(count: 1), channel: channel, times: 1))
        defer { context.removeFault(rule) }
        let episode = await context.reconnection(after: 4200, window: ReconnectionCases.window, name: "refusal")
        guard let after = episode?.after,
            let refusal = after.received.first(where: { $0.event == "pusher:subscription_error" })
        else { return .notObserved("the client did not subscribe to \(channel) again after a 4200") }
        await context.watch(for: .seconds(5))
        let now = await context.log.connection(after.number) ?? after
        let retries = now.subscribes.filter { $0.channel == channel && $0.at > refusal.at }.count
        if let ended = now.endedAt, ended - refusal.at < .seconds(5) {
            throw CaseFailure(
                expected: "the connection kept open after the refused subscription",
                got: "the client closed it \(Seconds.format(ended - refusal.at)) s later",
                evidence: context.evidence(now))
        }
        guard retries <= 3 else {
            throw CaseFailure(
                expected: "at most a few new pusher:subscribe to \(channel) after its refusal",
                got: "\(retries) in 5 s", evidence: context.evidence(now))
        }
        return .pass("kept the connection after the refusal of \(channel) (\(retries) retries in 5 s)")
    }

    static let backOffAfter4100 = ClientCase(
        "client.reconnect.backs-off-after-4100", .must, ClientDocs.backOff,
        "After close 4100 it waits at least a second before reconnecting, then comes back.",
        afterClose: 4100, window: .seconds(30)
    ) { context, episode throws(CaseFailure) in
        let log = await context.log
        let evidence = context.evidence(episode.before, episode.after, limit: 4)
        if let first = log.attempts(after: episode.closedAt).first, first - episode.closedAt < .milliseconds(950) {
            throw CaseFailure(
                expected: "no new connection within 1 s of close 4100",
                got: "one after \(Seconds.format(first - episode.closedAt)) s",
                evidence: evidence)
        }
        guard let delay = episode.delay else {
            throw CaseFailure(
                expected: "a new connection after backing off", got: "none within 30 s of close 4100",
                evidence: evidence)
        }
        return .pass("backed off \(Seconds.format(delay)) s after close 4100, then reconnected")
    }

    static let droppedConnection = ClientCase(
        "client.reconnect.after-dropped-connection", .should, ClientDocs.connection,
        "Reconnects after the TCP connection drops without a close frame (1006), in its channels again.",
        afterClose: 1006, window: .seconds(30)
    ) { context, episode throws(CaseFailure) in
        guard let after = episode.after, let delay = episode.delay else {
            throw CaseFailure(
                expected: "a new connection after the dropped one", got: "none within 30 s",
                evidence: context.evidence(episode.before, limit: 4))
        }
        let missing = episode.before.channelsHeld.subtracting(after.requestedChannels)
        guard missing.isEmpty else {
            throw CaseFailure(
                expected: "its channels subscribed again after the drop",
                got: "missing \(missing.sorted().joined(separator: ", "))", evidence: context.evidence(after))
        }
        return .pass("reconnected \(Seconds.format(delay)) s after the drop, in its channels again")
    }

    /// How long a client must stay away after 4009: longer than the fixed retry interval of clients that ignore the
    /// close code (pysher's 10 s `reconnect_interval`), so such a client is caught every time, not at the edge.
    static let stayAway = Duration.seconds(15)

    static let doNotReconnectAfter4009 = ClientCase(
        "client.reconnect.not-unchanged-after-4009", .must, ClientDocs.doNotReconnect,
        "After close 4009 (4000-4099) it does not reconnect with the same request. Run last: the client stays away."
    ) { context, connection throws(CaseFailure) in
        guard let closedAt = await context.close(connection, code: 4009) else {
            return .notObserved("the connection did not close")
        }
        await context.watch(for: stayAway)
        let log = await context.log
        let again = log.connections.filter { $0.openedAt > closedAt && $0.target == connection.target }
        let refusedAgain = log.refusals.filter { $0.at > closedAt && $0.target == connection.target }
        guard again.isEmpty, refusedAgain.isEmpty else {
            let first = (again.map(\.openedAt) + refusedAgain.map(\.at)).min() ?? closedAt
            throw CaseFailure(
                expected: "no new connection with the same request after close 4009",
                got:
                    "reconnected unchanged \(Seconds.format(first - closedAt)) s later (\(again.count + refusedAgain.count) attempts in \(Seconds.format(stayAway)) s)",
                evidence: context.evidence(connection, again.first, limit: 4))
        }
        return .pass("stayed away for \(Seconds.format(stayAway)) s after close 4009")
    }
}
