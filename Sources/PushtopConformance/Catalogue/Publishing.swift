import PusherProtocol

extension CaseContext {
    /// Publishes `event` on `channels` through the HTTP API (`POST /events` on `node`), failing the case unless the
    /// server answers 200; `what` names the request in that failure.
    func publish(
        _ event: String, on channels: [String], data: String = "{}", node: Int = 0, what: String = "the trigger"
    ) async throws {
        try ok(await trigger(node: node, channels: channels, event: event, data: data), what)
    }

    /// Publishes `event` on `channel` and fails the case unless each of `subscribers` receives it (waiting for them
    /// in order); returns what they received.
    @discardableResult
    func mustDeliver(
        _ event: String, on channel: String, data: String = "{}", to subscribers: [ProbeConnection], node: Int = 0,
        what: String = "the trigger"
    ) async throws -> [PusherMessage] {
        try await publish(event, on: [channel], data: data, node: node, what: what)
        var messages: [PusherMessage] = []
        for subscriber in subscribers { messages.append(try await mustReceive(subscriber, event, channel: channel)) }
        return messages
    }

    /// Subscribes a connection (on `subscriberNode`) to `channel`, publishes `event` there and returns what it
    /// received, failing the case unless it came.
    @discardableResult
    func deliveredToSubscriber(
        _ event: String, on channel: String, data: String = "{}", subscriberNode: Int = 0, node: Int = 0,
        what: String = "the trigger"
    ) async throws -> PusherMessage {
        let c = try await subscribed(channel, node: subscriberNode)
        return try await mustDeliver(event, on: channel, data: data, to: [c], node: node, what: what)[0]
    }
}
