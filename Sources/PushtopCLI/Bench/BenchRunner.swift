import Foundation
import Histogram
import PusherChannels
import Synchronization

/// Runs a bench: N subscriber connections, one HTTP publisher at a fixed rate, latency per delivery.
struct BenchRunner {
    var client: PusherClientOptions
    var api: PusherAPIConfiguration
    var target: String
    var channel: String
    var subscribers: Int
    var rate: Int
    var duration: Double
    var payloadBytes: Int
    var progress: @Sendable (String) -> Void

    /// Counts shared by the subscriber tasks and the progress line.
    final class Counters: Sendable {
        let received = Atomic<Int>(0)
        let published = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
        let lastDelivery = Mutex<ContinuousClock.Instant?>(nil)
        /// The longest publish-to-delivery latency so far, in microseconds.
        let slowest = Atomic<Int>(0)
        let firstError = Mutex<String?>(nil)
    }

    static func microsecondsNow() -> UInt64 {
        UInt64(Date().timeIntervalSince1970 * 1_000_000)
    }

    func run() async throws -> BenchResult {
        let counters = Counters()
        let (clients, consumers) = try await startSubscribers(counters: counters)
        defer { for c in clients { Task { await c.shutdown() } } }
        try await waitUntilSubscribed(clients)

        let publisher = PusherAPIClient(configuration: api)
        let start = ContinuousClock.now
        let progressTask = startProgress(counters: counters, start: start)
        await publish(through: publisher, counters: counters, start: start)
        if counters.published.load(ordering: .relaxed) == 0, let error = counters.firstError.withLock({ $0 }) {
            progressTask.cancel()
            throw BenchError.publishFailed(error)
        }
        let expected = counters.published.load(ordering: .relaxed) * subscribers
        try await drain(counters: counters, expected: expected)
        progressTask.cancel()
        let end = counters.lastDelivery.withLock { $0 } ?? ContinuousClock.now
        for c in clients { await c.shutdown() }
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for consumer in consumers { latency.add(await consumer.value) }
        let elapsed = end - start
        return BenchResult(
            target: target, subscribers: subscribers, rate: rate, duration: duration,
            published: counters.published.load(ordering: .relaxed),
            publishErrors: counters.failed.load(ordering: .relaxed),
            expected: expected, received: counters.received.load(ordering: .relaxed),
            elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
            latency: latency)
    }

    /// Creates, subscribes and connects the subscribers, each with a task that records the latency of its
    /// deliveries.
    private func startSubscribers(
        counters: Counters
    ) async throws -> ([PusherClient], [Task<Histogram<UInt64>, Never>]) {
        var clients: [PusherClient] = []
        var consumers: [Task<Histogram<UInt64>, Never>] = []
        for _ in 0..<subscribers {
            let c = PusherClient(options: client)
            let batches = c.eventBatches(bufferSize: 1_000_000)
            consumers.append(consume(batches, counters: counters))
            try await c.subscribe(channel)
            await c.connect()
            clients.append(c)
        }
        return (clients, consumers)
    }

    /// A task that counts one subscriber's bench events and records their latency.
    private func consume(
        _ batches: ClientEventBatches, counters: Counters
    ) -> Task<Histogram<UInt64>, Never> {
        let channel = self.channel
        return Task {
            var histogram = Histogram<UInt64>(
                highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
            for await batch in batches {
                let now = Self.microsecondsNow()
                var delivered = 0
                var slowest: UInt64 = 0
                for case .event(let e) in batch where e.channel == channel && e.name == "bench" {
                    if let sent = e.data?["t"]?.numberValue, sent > 0 {
                        let latency = now >= UInt64(sent) ? now - UInt64(sent) : 0
                        _ = histogram.record(latency)
                        slowest = max(slowest, latency)
                    }
                    delivered += 1
                }
                if delivered > 0 {
                    counters.slowest.max(Int(clamping: slowest), ordering: .relaxed)
                    counters.received.add(delivered, ordering: .relaxed)
                    counters.lastDelivery.withLock { $0 = .now }
                }
            }
            return histogram
        }
    }

    /// Waits until every subscriber is subscribed; throws when one is refused or not subscribed in time
    /// (15 s, and a second more per 100 subscribers).
    private func waitUntilSubscribed(_ clients: [PusherClient]) async throws {
        let seconds = 15 + clients.count / 100
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            var ready = 0
            for c in clients {
                let state = await c.subscriptionState(channel)
                if state == .subscribed { ready += 1 }
                if case .failed(let why)? = state { throw BenchError.subscriptionFailed(why) }
                if await c.state == .failed { throw BenchError.connectionFailed(await c.failureReason ?? "refused") }
            }
            if ready == clients.count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchError.subscriptionTimedOut(seconds: seconds)
    }

    /// The progress line, once a second until cancelled.
    private func startProgress(counters: Counters, start: ContinuousClock.Instant) -> Task<Void, Never> {
        let progress = self.progress
        let subscribers = self.subscribers
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                if Task.isCancelled { return }
                let elapsed = ContinuousClock.now - start
                progress(
                    String(
                        format: "bench: %.0f s  published %d  delivered %d/%d", Double(elapsed.components.seconds),
                        counters.published.load(ordering: .relaxed), counters.received.load(ordering: .relaxed),
                        counters.published.load(ordering: .relaxed) * subscribers))
            }
        }
    }

    /// Publishes `rate × duration` events at the fixed rate, at most 256 in flight.
    private func publish(
        through publisher: PusherAPIClient, counters: Counters, start: ContinuousClock.Instant
    ) async {
        let total = max(1, Int(Double(rate) * duration))
        let pad = String(repeating: "x", count: max(0, payloadBytes - 40))
        let interval = Duration.seconds(1.0 / Double(max(1, rate)))
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for i in 0..<total {
                let due = start + interval * i
                if ContinuousClock.now < due { try? await Task.sleep(until: due, clock: .continuous) }
                if inFlight >= 256 {
                    await group.next()
                    inFlight -= 1
                }
                inFlight += 1
                let channel = self.channel
                group.addTask {
                    let data = #"{"seq":\#(i),"t":\#(Self.microsecondsNow()),"pad":"\#(pad)"}"#
                    do {
                        _ = try await publisher.trigger(channels: [channel], event: "bench", data: data)
                        counters.published.add(1, ordering: .relaxed)
                    } catch {
                        counters.failed.add(1, ordering: .relaxed)
                        counters.firstError.withLock { $0 = $0 ?? String(describing: error) }
                    }
                }
            }
        }
    }

    /// Lets the last deliveries arrive: stops when everything came, or nothing came for 3 s or twice the slowest
    /// delivery so far, whichever is longer (10 s in all, or four times the slowest, at most a minute). The quiet is
    /// counted from the later of the last delivery and the end of publishing: a server answers a publish before it
    /// delivers it, and a busy one can deliver the last events well after its last answer.
    private func drain(counters: Counters, expected: Int) async throws {
        let drainStart = ContinuousClock.now
        var seen = counters.received.load(ordering: .relaxed)
        var quietSince = drainStart
        while seen < expected {
            try await Task.sleep(for: .milliseconds(10))
            let slowest = Duration.microseconds(counters.slowest.load(ordering: .relaxed))
            let now = ContinuousClock.now
            if now - drainStart > min(.seconds(60), max(.seconds(10), slowest * 4)) { break }
            let received = counters.received.load(ordering: .relaxed)
            if received != seen {
                (seen, quietSince) = (received, now)
            } else if now - quietSince > max(.seconds(3), slowest * 2) {
                break
            }
        }
    }
}

enum BenchError: Error, CustomStringConvertible {
    case subscriptionFailed(String)
    case connectionFailed(String)
    case publishFailed(String)
    case subscriptionTimedOut(seconds: Int)

    var description: String {
        switch self {
        case .subscriptionFailed(let why): return "a subscriber could not subscribe: \(why)"
        case .connectionFailed(let why): return "a subscriber could not connect: \(why)"
        case .publishFailed(let why): return "every publish failed: \(why)"
        case .subscriptionTimedOut(let seconds):
            return "the subscribers were not all subscribed within \(seconds) s: no event was published"
        }
    }
}
