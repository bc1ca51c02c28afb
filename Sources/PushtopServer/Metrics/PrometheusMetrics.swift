import Prometheus
import Synchronization

/// The hub's statistics in Prometheus' text format, through swift-prometheus.
///
/// The hub keeps plain counters (``HubStats``); at each scrape they are read once and the registry's counters
/// are advanced by what changed since the previous scrape, so the hub's hot paths never touch the registry.
public final class PrometheusMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let connections: Gauge
    private let channels: Gauge
    private let counters: [(read: @Sendable (HubStats) -> Int, counter: Counter)]
    private let last = Mutex(HubStats())

    /// A registry with pushtop's metrics, all at zero.
    public convenience init() {
        self.init(registry: PrometheusCollectorRegistry(), labels: [])
    }

    /// pushtop's metrics in `registry`, each with `labels` (a server of several apps: `app` and the app's id, the
    /// metrics of every app in one registry).
    init(registry: PrometheusCollectorRegistry, labels: [(String, String)]) {
        self.registry = registry
        // Names come out as pushtop_NAME (gauges) and pushtop_NAME_total (counters).
        func describe(_ name: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "pushtop", metricName: name, unitName: unit, helpText: help)
        }
        func counter(_ name: String, _ help: String, _ read: @escaping @Sendable (HubStats) -> Int)
            -> (read: @Sendable (HubStats) -> Int, counter: Counter)
        {
            (read, registry.makeCounter(descriptor: describe(name, unit: "total", help), labels: labels))
        }
        connections = registry.makeGauge(
            descriptor: describe("connections", "Open WebSocket connections."), labels: labels)
        channels = registry.makeGauge(
            descriptor: describe("channels", "Channels with at least one subscriber."), labels: labels)
        counters = [
            counter("connections_opened", "WebSocket connections accepted or refused.", { $0.connectionsOpened }),
            counter("messages_in", "Text messages received from clients.", { $0.messagesIn }),
            counter("messages_out", "Frames queued to clients.", { $0.messagesOut }),
            counter("events_published", "Events published, one per channel.", { $0.eventsPublished }),
            counter("deliveries", "Channel events queued to subscribers.", { $0.deliveries }),
            counter(
                "slow_consumer_closes", "Connections dropped for falling too far behind.", { $0.slowConsumerCloses }),
            counter("auth_failures", "Subscriptions refused for a missing or wrong signature.", { $0.authFailures }),
            counter("webhook_failures", "Webhooks that could not be delivered.", { $0.webhookFailures }),
            counter("inbox_drops", "Client messages dropped because the hub fell too far behind.", { $0.inboxDrops }),
            counter(
                "webhook_drops", "Webhook events dropped because a receiver's queue was full.", { $0.webhookDrops }),
            counter(
                "simulator_seal_failures", "Simulated encrypted events that could not be sealed, so were not sent.",
                { $0.simulatorSealFailures }),
        ]
    }

    /// Takes the metrics out of the registry (their app is no longer served).
    func unregister() {
        registry.unregisterGauge(connections)
        registry.unregisterGauge(channels)
        for (_, counter) in counters { registry.unregisterCounter(counter) }
    }

    /// Brings the metrics up to `stats` and returns the exposition text (`text/plain; version=0.0.4`).
    public func render(_ stats: HubStats) -> String {
        update(stats)
        return registry.emitToString()
    }

    /// Brings the metrics up to `stats` (the registry is emitted once for every app).
    func update(_ stats: HubStats) {
        last.withLock { previous in
            connections.set(Int64(stats.connections))
            channels.set(Int64(stats.channels))
            for (read, counter) in counters where read(stats) > read(previous) {
                counter.increment(by: Int64(read(stats) - read(previous)))
            }
            previous = stats
        }
    }
}
