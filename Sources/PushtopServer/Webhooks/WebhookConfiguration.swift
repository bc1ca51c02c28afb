/// Where the server posts webhooks and how hard it tries.
public struct WebhookConfiguration: Sendable, Hashable {
    /// The URLs that receive every batch (`serve --webhook URL`, repeatable).
    public var urls: [String]
    /// Tries per batch before it is dropped (and logged).
    public var maxAttempts: Int
    /// Seconds after the first try within which retries are made (Pusher retries for 5 minutes).
    public var retryFor: Double
    /// Seconds before the first retry; each retry waits twice as long, up to ``maxBackoff``.
    public var initialBackoff: Double
    /// The longest wait between two retries, in seconds.
    public var maxBackoff: Double
    /// Seconds events are gathered into one batch after the first arrives.
    public var batchWindow: Double
    /// Events in one request at most.
    public var maxBatchSize: Int
    /// Events waiting per URL before the oldest are dropped (a receiver that is down must not grow memory).
    public var maxQueuedEvents: Int
    /// Seconds to wait for a receiver's answer (Pusher expects a 2xx within 4 seconds).
    public var timeout: Double
    /// Seconds `channel_vacated` and `member_removed` wait: a return within it sends neither them nor the
    /// `channel_occupied`/`member_added` that follows (Pusher: 3 seconds). 0 sends every event at once.
    public var grace: Double = 3
    /// The event types (`channel_occupied`, `member_added`, …) each URL gets; a URL not listed gets every event.
    public var eventTypes: [String: Set<String>] = [:]

    /// Defaults: no URLs (no webhooks), 20 tries within 300 seconds, back-off from 1 to 60 seconds, 50 ms batches
    /// of at most 100 events, 10,000 queued events per URL, a 4-second timeout, a 3-second grace before departures.
    /// Durations are in seconds.
    public init(
        urls: [String] = [], maxAttempts: Int = 20, retryFor: Double = 300, initialBackoff: Double = 1,
        maxBackoff: Double = 60, batchWindow: Double = 0.05, maxBatchSize: Int = 100,
        maxQueuedEvents: Int = 10_000, timeout: Double = 4, grace: Double = 3
    ) {
        self.urls = urls
        self.maxAttempts = maxAttempts
        self.retryFor = retryFor
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.batchWindow = batchWindow
        self.maxBatchSize = maxBatchSize
        self.maxQueuedEvents = maxQueuedEvents
        self.timeout = timeout
        self.grace = grace
    }
}
