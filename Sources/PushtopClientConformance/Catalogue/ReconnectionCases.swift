import PushtopConformance
import PushtopProxy

/// What a client does after the server closes with 4200 ("reconnect immediately"): comes back at once, in the
/// same channels, authorized again, signed in again.
enum ReconnectionCases {
    static let all = [atOnceAfter4200, resubscribes, reauthorizes, signsInAgain]

    /// How long the 4200 cases wait for the client to come back before they fail it.
    static let window = Duration.seconds(15)

    static let atOnceAfter4200 = ClientCase(
        "client.reconnect.at-once-after-4200", .must, ClientDocs.reconnectNow,
        "Reconnects at once after the server closes with 4200.",
        afterClose: 4200, window: window
    ) { context, episode throws(CaseFailure) in
        let evidence = context.evidence(episode.before, episode.after, limit: 4)
        guard let delay = episode.delay else {
            throw CaseFailure(
                expected: "a new connection at once after close 4200",
                got: "no new connection within \(Seconds.format(window)) s", evidence: evidence)
        }
        guard delay <= context.settings.patience else {
            throw CaseFailure(
                expected:
                    "a new connection at once after close 4200 (within \(Seconds.format(context.settings.patience)) s)",
                got: "reconnected after \(Seconds.format(delay)) s", evidence: evidence)
        }
        return .pass("reconnected \(Seconds.format(delay)) s after close 4200")
    }

    static let resubscribes = ClientCase(
        "client.reconnect.resubscribes-after-4200", .must, ClientDocs.subscription,
        "After reconnecting, subscribes again to exactly the channels it was in.",
        afterClose: 4200, window: window
    ) { context, episode throws(CaseFailure) in
        let held = episode.before.channelsHeld
        guard !held.isEmpty else { return .notObserved("the client was in no channel when the server closed") }
        guard let after = episode.after else { return .notObserved("the client did not reconnect after 4200") }
        let asked = Set(after.requestedChannels)
        guard asked == held else {
            let missing = held.subtracting(asked).sorted()
            let extra = asked.subtracting(held).sorted()
            throw CaseFailure(
                expected:
                    "pusher:subscribe for the \(held.count) channels it was in: \(held.sorted().joined(separator: ", "))",
                got: (missing.isEmpty ? "" : "missing \(missing.joined(separator: ", ")) ")
                    + (extra.isEmpty ? "" : "not in before: \(extra.joined(separator: ", "))"),
                evidence: context.evidence(after))
        }
        return .pass("subscribed again to its \(held.count) channels: \(held.sorted().joined(separator: ", "))")
    }

    static let reauthorizes = ClientCase(
        "client.reconnect.reauthorizes-after-4200", .must, ClientDocs.subscribe,
        "After reconnecting, authorizes its private and presence channels anew (the socket id changed).",
        afterClose: 4200, window: window
    ) { context, episode throws(CaseFailure) in
        let guarded = episode.before.channelsHeld.filter { $0.hasPrefix("private-") || $0.hasPrefix("presence-") }
        guard !guarded.isEmpty else { return .notObserved("the client was in no private or presence channel") }
        guard let after = episode.after else { return .notObserved("the client did not reconnect after 4200") }
        func auth(_ connection: WireConnection, _ channel: String) -> String? {
            connection.subscribes.last { $0.channel == channel }?.data?["auth"]?.stringValue
        }
        // A channel the client did not ask for again is resubscribes-after-4200's failure, not this case's.
        let asked = guarded.filter { channel in after.subscribes.contains { $0.channel == channel } }
        guard !asked.isEmpty else {
            return .notObserved(
                "the client subscribed to none of its private or presence channels again (see client.reconnect.resubscribes-after-4200)"
            )
        }
        for channel in asked.sorted() {
            let old = auth(episode.before, channel)
            guard let new = auth(after, channel), new != old, after.confirmedChannels.contains(channel) else {
                throw CaseFailure(
                    expected: "\(channel) subscribed again with a new auth signature the server accepts",
                    got: auth(after, channel) == nil
                        ? "no pusher:subscribe with auth for \(channel)"
                        : (auth(after, channel) == old ? "the old socket's signature" : "the server refused it"),
                    evidence: context.evidence(after))
            }
        }
        return .pass("authorized \(asked.sorted().joined(separator: ", ")) anew for socket \(after.socketID ?? "?")")
    }

    static let signsInAgain = ClientCase(
        "client.reconnect.signs-in-again-after-4200", .must, ClientDocs.signin,
        "A signed-in client sends pusher:signin again on its new connection.",
        afterClose: 4200, window: window
    ) { context, episode throws(CaseFailure) in
        guard episode.before.signedIn else { return .notObserved("the client never sent pusher:signin") }
        guard let after = episode.after else { return .notObserved("the client did not reconnect after 4200") }
        let success = after.received.contains { $0.event == "pusher:signin_success" }
        guard after.signedIn, success else {
            throw CaseFailure(
                expected: "pusher:signin on the new connection, answered with pusher:signin_success",
                got: after.signedIn ? "a pusher:signin the server did not accept" : "no pusher:signin",
                evidence: context.evidence(after))
        }
        return .pass("signed in again on connection #\(after.number)")
    }
}
