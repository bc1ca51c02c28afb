import PushtopConformance
import PushtopProxy

/// Ping and pong: the client answers the server's ping, pings after `activity_timeout` of silence, and gives up a
/// connection whose pong never comes.
enum PingCases {
    static let all = [answersPing, pingsAfterSilence, noticesStall]

    static let answersPing = ClientCase(
        "client.ping.answers-server-ping", .must, ClientDocs.pingPong,
        "Answers the server's pusher:ping with pusher:pong."
    ) { context, connection throws(CaseFailure) in
        let sentAt = ContinuousClock.now
        guard context.send(#"{"event":"pusher:ping","data":{}}"#, to: connection) else {
            return .notObserved("the connection closed before the judge could ping it")
        }
        let number = connection.number
        let answered = await context.wait(upTo: context.settings.patience) { log in
            log.connection(number)?.sent.contains { $0.event == "pusher:pong" && $0.at >= sentAt } ?? false
        }
        let now = await context.log.connection(number)
        guard answered, let pong = now?.sent.first(where: { $0.event == "pusher:pong" && $0.at >= sentAt }) else {
            throw CaseFailure(
                expected:
                    "pusher:pong within \(Seconds.format(context.settings.patience)) s of the server's pusher:ping",
                got: "no pusher:pong", evidence: context.evidence(now))
        }
        return .pass("answered pusher:ping with pusher:pong in \(Seconds.format(pong.at - sentAt)) s")
    }

    static let pingsAfterSilence = ClientCase(
        "client.ping.pings-after-activity-timeout", .should, ClientDocs.established,
        "Sends pusher:ping after activity_timeout seconds with no message from the server (the proxy announces a short one)."
    ) { context, connection throws(CaseFailure) in
        let announced = context.announcedActivityTimeout(connection)
        let grace = Duration.seconds(max(3, announced / 2))
        let limit = Duration.seconds(announced) + grace
        let start = ContinuousClock.now
        let stop = start + (limit * 4)
        while ContinuousClock.now < min(stop, context.deadline) {
            guard let now = await context.log.connection(connection.number), now.isOpen else {
                return .notObserved("the connection ended before a silence of \(announced) s")
            }
            if let ping = now.sent.first(where: { $0.event == "pusher:ping" && $0.at > start }) {
                let before = now.messages.last { $0.at < ping.at }?.at ?? now.openedAt
                return .pass(
                    "sent pusher:ping after \(Seconds.format(ping.at - before)) s of silence "
                        + "(activity_timeout announced: \(announced) s)")
            }
            let last = now.messages.last?.at ?? now.openedAt
            if ContinuousClock.now - last > limit {
                throw CaseFailure(
                    expected:
                        "pusher:ping after \(announced) s without a message (activity_timeout \(announced) s, announced in pusher:connection_established)",
                    got: "no pusher:ping after \(Seconds.format(ContinuousClock.now - last)) s of silence",
                    evidence: context.evidence(now))
            }
            await context.watch(for: .milliseconds(200))
        }
        return .notObserved("messages kept reaching the client: the connection was never silent for \(announced) s")
    }

    static let noticesStall = ClientCase(
        "client.ping.notices-stalled-connection", .must, ClientDocs.pingPong,
        "Gives up a connection whose pong never comes (within activity_timeout plus the pong timeout) and reconnects."
    ) { context, connection throws(CaseFailure) in
        let announced = context.announcedActivityTimeout(connection)
        let window = Duration.seconds(announced) + context.settings.pongTimeout + .seconds(5)
        _ = context.fault(.stall, on: connection)
        let stalledAt = ContinuousClock.now
        let number = connection.number
        let gaveUp = await context.wait(upTo: window) { log in
            log.connection(number)?.endedAt != nil || !log.attempts(after: stalledAt).isEmpty
        }
        let log = await context.log
        guard gaveUp else {
            context.drop(connection)  // so that the next cases have a connection to work on
            throw CaseFailure(
                expected:
                    "the stalled connection given up within \(Seconds.format(window)) s (activity_timeout \(announced) s + pong timeout \(Seconds.format(context.settings.pongTimeout)) s + 5 s)",
                got: "the client kept the stalled connection for \(Seconds.format(ContinuousClock.now - stalledAt)) s",
                evidence: context.evidence(log.connection(number)))
        }
        let gaveUpAt = min(log.connection(number)?.endedAt ?? .now, log.attempts(after: stalledAt).first ?? .now)
        let back = await context.wait(upTo: .seconds(30)) { $0.firstEstablished(after: stalledAt) != nil }
        let next = await context.log.firstEstablished(after: stalledAt)
        guard back, let next else {
            throw CaseFailure(
                expected: "a new connection after giving up the stalled one",
                got: "no connection within 30 s of giving up", evidence: context.evidence(log.connection(number)))
        }
        return .pass(
            "gave up the stalled connection after \(Seconds.format(gaveUpAt - stalledAt)) s and reconnected "
                + "(connection #\(next.number))")
    }
}
