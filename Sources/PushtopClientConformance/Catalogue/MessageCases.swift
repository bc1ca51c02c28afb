import PusherProtocol
import PushtopConformance

/// What the client sent, judged over the whole run: well-formed messages, client events only where allowed and no
/// faster than allowed.
enum MessageCases {
    static let all = [wellFormed, clientEventChannels, clientEventRate]

    static let wellFormed = ClientCase(
        "client.messages.well-formed", .must, ClientDocs.events,
        "Every message is a JSON object with an event; subscriptions name a channel, with auth and channel_data where needed."
    ) { context throws(CaseFailure) in
        let log = await context.settledLog()
        let sent = log.connections.flatMap { connection in connection.sent.map { (connection, $0) } }
        guard !sent.isEmpty else { return .notObserved("the client sent nothing") }
        for (connection, message) in sent {
            if let problem = problem(message) {
                throw CaseFailure(
                    expected: "well-formed messages (JSON object, string event, the fields each event needs)",
                    got: problem,
                    evidence: [message.line(since: context.origin)] + context.evidence(connection, limit: 4))
            }
        }
        return .pass("\(sent.count) messages, all well-formed")
    }

    /// What is wrong with a message from the client, if anything.
    static func problem(_ message: WireMessage) -> String? {
        guard let json = message.json, json.objectValue != nil else { return "a message that is not a JSON object" }
        guard let event = message.event, !event.isEmpty else { return "a message without a string event" }
        guard event == "pusher:subscribe" else {
            if event.hasPrefix("client-"), message.json?["channel"]?.stringValue == nil {
                return "\(event) without a channel"
            }
            return nil
        }
        guard let channel = message.data?["channel"]?.stringValue, !channel.isEmpty else {
            return "pusher:subscribe without data.channel"
        }
        let guarded = channel.hasPrefix("private-") || channel.hasPrefix("presence-")
        if guarded, message.data?["auth"]?.stringValue?.contains(":") != true {
            return "pusher:subscribe to \(channel) without an auth of the form key:signature"
        }
        if channel.hasPrefix("presence-") {
            guard let text = message.data?["channel_data"]?.stringValue, let data = JSONValue.parseIfJSON(text),
                let user = data["user_id"], user.stringValue != nil || user.intValue != nil
            else { return "pusher:subscribe to \(channel) without channel_data naming a user_id" }
        }
        return nil
    }

    static let clientEventChannels = ClientCase(
        "client.events.private-or-presence-only", .must, ClientDocs.clientEvents,
        "Sends client events only on private and presence channels it is in (never public or encrypted ones)."
    ) { context throws(CaseFailure) in
        let log = await context.settledLog()
        let events = log.connections.flatMap { c in c.sent.filter { $0.event?.hasPrefix("client-") == true } }
        guard !events.isEmpty else { return .notObserved("the client sent no client event") }
        for event in events {
            let channel = event.channel ?? ""
            let allowed =
                (channel.hasPrefix("private-") && !channel.hasPrefix("private-encrypted-"))
                || channel.hasPrefix("presence-")
            guard allowed else {
                throw CaseFailure(
                    expected: "client events on private- or presence- channels only",
                    got: "\(event.event ?? "?") on \(channel.isEmpty ? "no channel" : channel)",
                    evidence: [event.line(since: context.origin)])
            }
        }
        return .pass("\(events.count) client events, all on private or presence channels")
    }

    static let clientEventRate = ClientCase(
        "client.events.at-most-10-per-second", .must, ClientDocs.clientEvents,
        "Sends at most 10 client events a second on a connection."
    ) { context throws(CaseFailure) in
        let log = await context.settledLog()
        var total = 0
        for connection in log.connections {
            let times = connection.sent.filter { $0.event?.hasPrefix("client-") == true }.map(\.at)
            total += times.count
            var start = 0
            for (end, time) in times.enumerated() {
                while time - times[start] >= .seconds(1) { start += 1 }
                if end - start + 1 > 10 {
                    throw CaseFailure(
                        expected: "at most 10 client events in any second",
                        got:
                            "\(end - start + 1) within \(Seconds.format(time - times[start])) s on connection #\(connection.number)",
                        evidence: connection.sent.filter { $0.at >= times[start] && $0.at <= time }.prefix(12).map {
                            $0.line(since: context.origin)
                        })
                }
            }
        }
        guard total > 0 else { return .notObserved("the client sent no client event") }
        return .pass("\(total) client events, never more than 10 in a second")
    }
}
