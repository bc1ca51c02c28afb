import Histogram
import PusherChannels

/// What one `pushtop bench` run measured.
struct BenchResult {
    var target: String
    var subscribers: Int
    var rate: Int
    var duration: Double
    var published: Int
    var publishErrors: Int
    var expected: Int
    var received: Int
    /// Seconds from the first publish to the last delivery.
    var elapsed: Double
    /// Delivery latency in microseconds, HTTP trigger to consumer.
    var latency: Histogram<UInt64>

    var deliveryRatio: Double { expected == 0 ? 1 : Double(received) / Double(expected) }
    var throughput: Double { elapsed > 0 ? Double(received) / elapsed : 0 }

    private func ms(_ percentile: Double) -> Double {
        latency.totalCount == 0 ? 0 : Double(latency.valueAtPercentile(percentile)) / 1000
    }

    var p50: Double { ms(50) }
    var p90: Double { ms(90) }
    var p99: Double { ms(99) }
    var max: Double { latency.totalCount == 0 ? 0 : Double(latency.max) / 1000 }

    var text: String {
        func f(_ v: Double) -> String { String(format: "%.3f", v) }
        return """
            pushtop bench: \(target)
              subscribers       \(subscribers)
              publish rate      \(rate)/s for \(f(duration)) s: \(published) published, \(publishErrors) failed
              deliveries        \(received) of \(expected) (\(String(format: "%.2f", deliveryRatio * 100)) %)
              throughput        \(String(format: "%.0f", throughput)) deliveries/s
              latency (ms)      p50 \(f(p50))  p90 \(f(p90))  p99 \(f(p99))  max \(f(max))
            """
    }

    var json: String {
        WatchLine.object([
            ("target", .string(target)), ("subscribers", .number(Double(subscribers))), ("rate", .number(Double(rate))),
            ("duration_s", .number(duration)), ("published", .number(Double(published))),
            ("publish_errors", .number(Double(publishErrors))), ("expected", .number(Double(expected))),
            ("received", .number(Double(received))), ("delivery_ratio", .number(deliveryRatio)),
            ("throughput_per_s", .number(throughput.rounded())),
            (
                "latency_ms",
                .object([
                    "p50": .number(p50), "p90": .number(p90), "p99": .number(p99), "max": .number(max),
                ])
            ),
        ])
    }
}
