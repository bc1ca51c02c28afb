import PusherProtocol

/// One relayed connection of the client under judgement, as the proxy saw it: when it opened, what it asked for,
/// every text message both ways, and how it ended.
package struct WireConnection: Sendable {
    /// The proxy's number for it (1 for the first since the proxy started).
    package let number: Int
    package let remoteHost: String
    /// The upgrade's path and query (`/app/KEY?protocol=7&client=js&version=8.4.0`).
    package let target: String
    package let openedAt: ContinuousClock.Instant
    package internal(set) var messages: [WireMessage] = []
    package internal(set) var endedAt: ContinuousClock.Instant?
    /// The close code the client's socket ended with (`nil`: dropped without a close frame).
    package internal(set) var endCode: Int?
    package internal(set) var closedBy: String?

    package init(number: Int, remoteHost: String, target: String, openedAt: ContinuousClock.Instant) {
        self.number = number
        self.remoteHost = remoteHost
        self.target = target
        self.openedAt = openedAt
    }

    package var isOpen: Bool { endedAt == nil }

    /// The `pusher:connection_established` the client received, if it did.
    package var established: WireMessage? {
        messages.first { !$0.fromClient && $0.event == PusherEventName.connectionEstablished }
    }

    package var socketID: String? { established?.data?["socket_id"]?.stringValue }

    /// What the client sent.
    package var sent: [WireMessage] { messages.filter(\.fromClient) }

    /// What the client received.
    package var received: [WireMessage] { messages.filter { !$0.fromClient } }

    /// The client's `pusher:subscribe` messages, in order.
    package var subscribes: [WireMessage] { sent.filter { $0.event == "pusher:subscribe" } }

    /// The channels the client asked for on this connection, in the order first asked.
    package var requestedChannels: [String] {
        var seen: [String] = []
        for message in subscribes {
            if let channel = message.channel, !seen.contains(channel) { seen.append(channel) }
        }
        return seen
    }

    /// The channels the upstream confirmed (`pusher_internal:subscription_succeeded`).
    package var confirmedChannels: Set<String> {
        Set(received.filter { $0.event == "pusher_internal:subscription_succeeded" }.compactMap(\.channel))
    }

    /// The channels the client was in when the connection ended (or is in now): confirmed and not left.
    package var channelsHeld: Set<String> {
        let left = Set(sent.filter { $0.event == "pusher:unsubscribe" }.compactMap(\.channel))
        return confirmedChannels.subtracting(left)
    }

    /// Whether the client sent `pusher:signin`.
    package var signedIn: Bool { sent.contains { $0.event == "pusher:signin" } }

    /// The last message to the client before `instant` (or its opening when none came).
    package func lastReceived(before instant: ContinuousClock.Instant) -> ContinuousClock.Instant {
        received.last { $0.at <= instant }?.at ?? openedAt
    }

    /// The messages as evidence lines (`+s >> …`), at most `limit` of the last ones, since `origin`.
    package func evidence(since origin: ContinuousClock.Instant, limit: Int = 12) -> [String] {
        var lines = ["\(Seconds.since(origin, openedAt)) connection #\(number) from \(remoteHost): GET \(target)"]
        lines += messages.suffix(limit).map { $0.line(since: origin) }
        if let endedAt {
            lines.append(
                "\(Seconds.since(origin, endedAt)) connection #\(number) ended: "
                    + "\(endCode.map { "code \($0)" } ?? "no close frame")\(closedBy.map { ", closed by \($0)" } ?? "")"
            )
        }
        return lines
    }
}
