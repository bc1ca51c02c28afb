/// Counters of what a hub has done since it started, and its current size: what `GET /metrics` reports.
///
/// The hub bumps the counters where things happen; ``PusherHub/statistics`` adds the gauges when read.
public struct HubStats: Sendable, Hashable {
    /// Open connections (a gauge).
    public var connections = 0
    /// Channels with at least one subscriber (a gauge).
    public var channels = 0
    /// Connections accepted or refused since the start.
    public var connectionsOpened = 0
    /// Text messages received from clients.
    public var messagesIn = 0
    /// Frames queued to clients (events, replies, errors, pings).
    public var messagesOut = 0
    /// Events published (through the HTTP API, the hub, or client events), one per channel.
    public var eventsPublished = 0
    /// Channel events queued to subscribers: one publish to a channel with 3 subscribers counts 3.
    public var deliveries = 0
    /// Connections dropped because they fell more than ``PusherLimits/maxQueuedFrames`` behind.
    public var slowConsumerCloses = 0
    /// Subscriptions refused for a missing or wrong auth signature.
    public var authFailures = 0
    /// Webhooks that could not be delivered.
    public var webhookFailures = 0
    /// Clients' messages dropped because the queue from the sockets to the hub was full (`HubInbox`).
    public var inboxDrops = 0
    /// Webhook events dropped because a receiver's queue was full (it is down or too slow).
    public var webhookDrops = 0
    /// Events the simulator could not encrypt for an encrypted channel, so did not send.
    public var simulatorSealFailures = 0

    /// All zero.
    public init() {}
}
