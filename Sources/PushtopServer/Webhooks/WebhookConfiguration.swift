/// Where the server posts webhooks and how hard it tries.
public struct WebhookConfiguration: Sendable, Hashable {
    /// The URLs that receive every batch (`serve --webhook URL`, repeatable).
    public var urls: [String]
    /// Tries per batch before it is dropped (and logged).
    public var maxAttempts: Int
    /// Seconds before the first retry; each retry waits twice as long, up to ``maxBackoff``.
    public var initialBackoff: Double
    public var maxBackoff: Double
    /// Seconds events are gathered into one batch after the first arrives.
    public var batchWindow: Double
    /// Events in one request at most.
    public var maxBatchSize: Int
    /// Events waiting per URL before the oldest are dropped (a receiver that is down must not grow memory).
    public var maxQueuedEvents: Int
    /// Seconds to wait for a receiver's answer.
    public var timeout: Double

    public init(urls: [String] = [], maxAttempts: Int = 6, initialBackoff: Double = 1, maxBackoff: Double = 30,
                batchWindow: Double = 0.05, maxBatchSize: Int = 100, maxQueuedEvents: Int = 10_000,
                timeout: Double = 10) {
        self.urls = urls
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.batchWindow = batchWindow
        self.maxBatchSize = maxBatchSize
        self.maxQueuedEvents = maxQueuedEvents
        self.timeout = timeout
    }
}
