import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import PusherProtocol
import Synchronization

/// Posts Pusher webhooks: batches of events as `{"time_ms":…, "events":[…]}`, signed with `X-Pusher-Key` and
/// `X-Pusher-Signature` (hex HMAC-SHA256 of the body keyed with the app secret), to every configured URL.
///
/// - Important: ``enqueue(_:)`` never waits: each URL has its own bounded queue and its own sender task, so a
///   slow or failing receiver delays only its own webhooks, never the hub's deliveries or the other URLs.
///   A failed request is retried with exponential back-off, a bounded number of times.
public final class WebhookDispatcher: Sendable {
    private let senders: [Sender]
    private let failures = FailureCount()
    private let drops = FailureCount()
    /// Departures held for the grace (``WebhookGrace``), and the task that posts them when it is over.
    private let grace: GraceBox
    private let graceBell: AsyncStream<Void>.Continuation
    private let graceTimer: Task<Void, Never>

    /// Posts that failed (an error or a non-2xx answer), retries included: the `webhook_failures` metric.
    public var failedPosts: Int { failures.value.load(ordering: .relaxed) }
    /// Events dropped because a URL's queue was full (``WebhookConfiguration/maxQueuedEvents``): the
    /// `webhook_drops` metric.
    public var droppedEvents: Int { drops.value.load(ordering: .relaxed) }

    final class FailureCount: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The grace's state, shared with its timer task (a `Mutex` cannot be captured by itself).
    final class GraceBox: Sendable {
        let state: Mutex<WebhookGrace>
        init(_ grace: WebhookGrace) { state = Mutex(grace) }
        func withLock<T: Sendable>(_ body: (inout WebhookGrace) -> T) -> T { state.withLock { body(&$0) } }
    }

    /// Starts one sender per URL of `configuration`.
    /// - Parameters:
    ///   - configuration: the URLs and the retry, batching and queueing limits.
    ///   - app: the app whose key and secret sign the webhooks.
    ///   - client: the HTTP client that posts them; the shared one by default.
    ///   - logger: where failed and dropped batches are logged.
    public convenience init(
        configuration: WebhookConfiguration, app: AppCredentials, client: HTTPClient = .shared,
        logger: Logger
    ) {
        self.init(configuration: configuration, app: app, client: client, logger: logger, console: nil)
    }

    /// A dispatcher that also reports each attempt in the app's debug feed (`webhook_sent`, `webhook_failed`).
    init(
        configuration: WebhookConfiguration, app: AppCredentials, client: HTTPClient = .shared,
        logger: Logger, console: ConsoleHub?
    ) {
        let failures = self.failures
        let drops = self.drops
        let senders = configuration.urls.map {
            Sender(
                url: $0, configuration: configuration, app: app, client: client, logger: logger, failures: failures,
                drops: drops, console: console)
        }
        self.senders = senders
        let grace = GraceBox(WebhookGrace(seconds: configuration.grace))
        self.grace = grace
        let (bell, graceBell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.graceBell = graceBell
        graceTimer = Task { [grace] in
            for await _ in bell {
                while let due = grace.withLock({ $0.nextDue }) {
                    try? await Task.sleep(until: due, clock: .continuous)
                    if Task.isCancelled { return }
                    for event in grace.withLock({ $0.expire(now: .now) }) {
                        for sender in senders { sender.enqueue(event) }
                    }
                }
            }
        }
    }

    deinit { graceTimer.cancel() }

    /// Whether a URL asks for `subscription_count` events (the hub makes them only then).
    public var wantsSubscriptionCounts: Bool { senders.contains { $0.wantsSubscriptionCounts } }

    /// Queues an event for every URL; `channel_vacated` and `member_removed` after the grace, unless undone in it.
    public func enqueue(_ event: WebhookEvent) {
        let now = ContinuousClock.now
        let ready = grace.withLock { $0.offer(event, now: now) }
        for event in ready {
            for sender in senders { sender.enqueue(event) }
        }
        if ready.isEmpty { graceBell.yield() }
    }

    /// Stops taking events; departures still in their grace go out now, and batches already queued are still sent
    /// (with their retries).
    public func finish() {
        for event in grace.withLock({ $0.flush() }) {
            for sender in senders { sender.enqueue(event) }
        }
        graceBell.finish()
        graceTimer.cancel()
        for sender in senders { sender.finish() }
    }

    /// Waits until every queue is empty and no request is in flight, or the task is cancelled (for tests and
    /// orderly shutdown).
    public func drained() async {
        for sender in senders { await sender.drained() }
    }

    /// One receiving URL: a locked queue, a doorbell, and the task that sends.
    final class Sender: Sendable {
        private struct Queue {
            var events: [WebhookEvent] = []
            var dropped = 0
            var busy = false
        }

        private let url: String
        /// The event types this URL gets (`nil`: all).
        private let accepted: Set<String>?
        private let drops: FailureCount
        private let configuration: WebhookConfiguration
        private let app: AppCredentials
        private let client: HTTPClient
        private let logger: Logger
        /// Shared with the sender task (a `Mutex` cannot be captured by itself).
        private final class Shared: Sendable {
            let queue = Mutex(Queue())
        }

        private let shared = Shared()
        private let doorbell: AsyncStream<Void>.Continuation
        private let task: Task<Void, Never>

        init(
            url: String, configuration: WebhookConfiguration, app: AppCredentials, client: HTTPClient,
            logger: Logger, failures: FailureCount, drops: FailureCount, console: ConsoleHub?
        ) {
            self.url = url
            self.accepted = configuration.eventTypes[url]
            self.drops = drops
            self.configuration = configuration
            self.app = app
            self.client = client
            self.logger = logger
            let (rings, doorbell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            self.doorbell = doorbell
            let shared = self.shared
            task = Task { [configuration, url, app, client, logger, failures, console] in
                for await _ in rings {
                    if configuration.batchWindow > 0 {
                        try? await Task.sleep(for: .milliseconds(Int64(configuration.batchWindow * 1000)))
                    }
                    while true {
                        let (batch, dropped) = shared.queue.withLock { q -> ([WebhookEvent], Int) in
                            let batch = Array(q.events.prefix(configuration.maxBatchSize))
                            q.events.removeFirst(batch.count)
                            let dropped = q.dropped
                            q.dropped = 0
                            q.busy = !batch.isEmpty
                            return (batch, dropped)
                        }
                        if dropped > 0 {
                            logger.warning(
                                "dropped webhook events: the receiver is too slow or down",
                                metadata: ["url": "\(url)", "dropped": "\(dropped)"])
                        }
                        if batch.isEmpty { break }
                        await Self.post(
                            batch, to: url, configuration: configuration, app: app, client: client,
                            logger: logger, failures: failures, console: console)
                    }
                }
            }
        }

        deinit { task.cancel() }

        /// Whether this URL asks for `subscription_count` events.
        var wantsSubscriptionCounts: Bool { accepted?.contains("subscription_count") == true }

        /// Queues an event this URL takes (all, or those of its ``WebhookConfiguration/eventTypes``); past
        /// ``WebhookConfiguration/maxQueuedEvents`` the oldest is dropped and counted.
        func enqueue(_ event: WebhookEvent) {
            let name = event.name
            if let accepted, !accepted.contains(name) { return }
            // subscription_count goes only to URLs that ask for it (one per change of a count: many).
            if accepted == nil, name == "subscription_count" { return }
            let dropped = shared.queue.withLock { q -> Bool in
                q.events.append(event)
                guard q.events.count > configuration.maxQueuedEvents else { return false }
                q.events.removeFirst()
                q.dropped += 1
                return true
            }
            if dropped { drops.value.add(1, ordering: .relaxed) }
            doorbell.yield()
        }

        func finish() {
            doorbell.finish()
        }

        func drained() async {
            while !Task.isCancelled, shared.queue.withLock({ !$0.events.isEmpty || $0.busy }) {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }

        /// A `webhook_sent` / `webhook_failed` row of the debug feed.
        static func consoleRow(
            _ type: ConsoleRowType, _ batch: [WebhookEvent], _ url: String, _ attempt: Int, _ status: Int?,
            _ reason: String?
        ) -> ConsoleRow {
            var row = ConsoleRow(type: type, timeMs: ConsoleClock.nowMs())
            row.url = url
            row.attempt = attempt
            row.status = status
            row.reason = reason
            row.events = batch.map(\.name)
            let channels = batch.compactMap { $0.json["channel"]?.stringValue }
            if !channels.isEmpty { row.channels = channels }
            return row
        }

        /// Sends one batch, retrying with exponential back-off; gives up (and logs) after the last attempt.
        private static func post(
            _ batch: [WebhookEvent], to url: String, configuration: WebhookConfiguration,
            app: AppCredentials, client: HTTPClient, logger: Logger,
            failures: FailureCount, console: ConsoleHub?
        ) async {
            var delay = configuration.initialBackoff
            let started = ContinuousClock.now
            for attempt in 1...max(1, configuration.maxAttempts) {
                // Each try is signed anew: receivers reject bodies whose time_ms is too old.
                let body = WebhookEvent.body(batch, timeMS: Int(Date().timeIntervalSince1970 * 1000))
                var request = HTTPClientRequest(url: url)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.headers.add(name: "X-Pusher-Key", value: app.key)
                request.headers.add(
                    name: "X-Pusher-Signature",
                    value: ChannelAuthSignature.hmacHex(secret: app.secret, message: body))
                request.body = .bytes(ByteBuffer(string: body))
                let outcome: String
                var status: Int?
                do {
                    let response = try await client.execute(
                        request, timeout: .milliseconds(Int64(configuration.timeout * 1000)))
                    _ = try? await response.body.collect(upTo: 64 * 1024)
                    status = Int(response.status.code)
                    if (200..<300).contains(Int(response.status.code)) {
                        console?.emit { Self.consoleRow(.webhookSent, batch, url, attempt, status, nil) }
                        return
                    }
                    outcome = "HTTP \(response.status.code)"
                } catch {
                    outcome = String(describing: error)
                }
                console?.emit { Self.consoleRow(.webhookFailed, batch, url, attempt, status, outcome) }
                failures.value.add(1, ordering: .relaxed)
                let elapsed = ContinuousClock.now - started
                guard attempt < configuration.maxAttempts, !Task.isCancelled,
                    elapsed + .milliseconds(Int64(delay * 1000)) <= .milliseconds(Int64(configuration.retryFor * 1000))
                else {
                    logger.error(
                        "gave up on a webhook batch",
                        metadata: [
                            "url": "\(url)", "events": "\(batch.count)", "attempts": "\(attempt)", "last": "\(outcome)",
                        ])
                    return
                }
                logger.warning(
                    "webhook failed; retrying",
                    metadata: [
                        "url": "\(url)", "attempt": "\(attempt)", "in": "\(delay)s", "reason": "\(outcome)",
                    ])
                try? await Task.sleep(for: .milliseconds(Int64(delay * 1000)))
                delay = min(configuration.maxBackoff, delay * 2)
            }
        }
    }
}
