import BenchmarkSupport
import Foundation

/// `pushtop-benchmarks fanout`: one event at a time through the HTTP API of a running `pushtop serve` to N raw
/// subscribers read by one thread; the latency of every delivery (request written → frame read) and, with
/// `--server-pid`, the server's CPU per delivery.
enum FanOutLatency {
    struct Settings {
        var target: SignedPublisher.Target
        var subscribers = 1000
        var events = 200
        var warmUp = 10
        var gap = Duration.milliseconds(2)
        var channel = "fanout"
        var serverPID: Int32?
    }

    static func run(_ settings: Settings) throws -> String {
        let n = settings.subscribers
        let setupStart = ContinuousClock.now
        let subscribers = try TimedSubscribers.connect(
            count: n, host: settings.target.host, port: settings.target.port, key: settings.target.key,
            channel: settings.channel)
        log("fanout: \(n) subscribers on \(settings.channel) in \(ContinuousClock.now - setupStart)")
        subscribers.start()
        let publisher = try SignedPublisher(settings.target)
        // Warm-up events (stream 1: counted, not timed).
        for i in 0..<settings.warmUp {
            try publisher.trigger(
                channel: settings.channel, name: "bench",
                data: TimedSubscribers.eventData(stream: 1, sequence: i, sentAt: monotonicNanoseconds()))
            _ = subscribers.waitForDeliveries((i + 1) * n, timeout: .seconds(5))
        }
        let base = subscribers.deliveredCount
        let server = settings.serverPID.map(ServerProcess.init(pid:))
        let cpuBefore = server?.cpuTimes()
        let toolBefore = ServerProcess(pid: getpid()).cpuSeconds() ?? 0
        let start = ContinuousClock.now
        var incomplete = 0
        for i in 0..<settings.events {
            try publisher.trigger(
                channel: settings.channel, name: "bench",
                data: TimedSubscribers.eventData(stream: 0, sequence: i, sentAt: monotonicNanoseconds()))
            if !subscribers.waitForDeliveries(base + (i + 1) * n, timeout: .seconds(5)) { incomplete += 1 }
            if settings.gap > .zero { Thread.sleep(forTimeInterval: settings.gap.seconds) }
        }
        let elapsed = ContinuousClock.now - start
        let cpuAfter = server?.cpuTimes()
        let toolCPU = (ServerProcess(pid: getpid()).cpuSeconds() ?? 0) - toolBefore
        let delivered = subscribers.deliveredCount - base
        let report = subscribers.stop()
        var lines = [
            String(
                format: "fanout: %d events to %d subscribers: delivered %d/%d in %.1f s%@", settings.events, n,
                delivered, settings.events * n, elapsed.seconds,
                incomplete > 0 ? " (\(incomplete) events not fully delivered within 5 s)" as NSString : ""),
            String(
                format: "latency (request written -> frame read): p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms",
                report.milliseconds(at: 0.5), report.milliseconds(at: 0.9), report.milliseconds(at: 0.99),
                report.milliseconds(at: 1)),
        ]
        if report.outOfOrder > 0 { lines.append("out of order: \(report.outOfOrder)") }
        if let cpuBefore, let cpuAfter, delivered > 0 {
            let user = cpuAfter.user - cpuBefore.user, system = cpuAfter.system - cpuBefore.system
            let perDelivery = 1e6 / Double(delivered)
            lines.append(
                String(
                    format: "server CPU: %.2f s for %d deliveries = %.2f µs per delivery (user %.2f, system %.2f)",
                    user + system, delivered, (user + system) * perDelivery, user * perDelivery, system * perDelivery))
        }
        lines.append(String(format: "this tool's CPU (subscribers and publisher, same cores): %.2f s", toolCPU))
        return lines.joined(separator: "\n")
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Progress on stderr.
func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
