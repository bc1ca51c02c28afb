import BenchmarkSupport
import Foundation
import Synchronization

/// `pushtop-benchmarks sustain`: a steady rate of numbered events through `POST /batch_events` (several
/// keep-alive connections, one stream of sequence numbers each) to N raw subscribers that check every number;
/// with `--server-pid`, the server's resident memory every second and its CPU.
enum SustainedPublish {
    struct Settings {
        var target: SignedPublisher.Target
        var rate = 50_000
        var seconds = 30.0
        var subscribers = 10
        var connections = 16
        var batch = 10
        var channel = "sustain"
        var serverPID: Int32?
        /// Where the subscribers connect, in turn (default: the publishing server): other nodes of a cluster.
        var subscribePorts: [Int] = []
        /// More processes whose CPU per event is reported (the other nodes, redis-server), by name.
        var otherProcesses: [(name: String, pid: Int32)] = []
    }

    static func run(_ settings: Settings) throws -> String {
        let n = settings.subscribers
        let subscribers = try TimedSubscribers.connect(
            count: n, host: settings.target.host,
            ports: settings.subscribePorts.isEmpty ? [settings.target.port] : settings.subscribePorts,
            key: settings.target.key, channel: settings.channel, streams: settings.connections)
        subscribers.start()
        let server = settings.serverPID.map(ServerProcess.init(pid:))
        let rssStart = server?.residentKiB()
        let cpuBefore = server?.cpuSeconds()
        let othersBefore = settings.otherProcesses.map { ServerProcess(pid: $0.pid).cpuSeconds() }
        let toolBefore = ServerProcess(pid: getpid()).cpuSeconds() ?? 0
        let published = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        // Each connection publishes its share: requests of `batch` events, due at a fixed interval (sent at once
        // when behind, until the time is up, so a slow server shows as a lower achieved rate).
        let perConnection = Double(settings.rate) / Double(settings.connections)
        let interval = Double(settings.batch) / perConnection
        let start = ContinuousClock.now
        let end = start + .seconds(settings.seconds)
        for stream in 0..<settings.connections {
            let thread = Thread {
                defer { done.signal() }
                do {
                    let publisher = try SignedPublisher(settings.target)
                    var sequence = 0
                    var request = 0
                    var events: [(name: String, data: String)] = []
                    while true {
                        let due = start + .seconds(Double(request) * interval)
                        if due >= end || ContinuousClock.now >= end { break }
                        let wait = due - ContinuousClock.now
                        if wait > .zero { Thread.sleep(forTimeInterval: wait.seconds) }
                        events.removeAll(keepingCapacity: true)
                        let sentAt = monotonicNanoseconds()
                        for _ in 0..<settings.batch {
                            events.append(
                                (
                                    "bench",
                                    TimedSubscribers.eventData(
                                        stream: stream, sequence: sequence, sentAt: sentAt)
                                ))
                            sequence += 1
                        }
                        try publisher.triggerBatch(channel: settings.channel, events: events)
                        published.add(settings.batch, ordering: .relaxed)
                        request += 1
                    }
                } catch {
                    failures.withLock { $0.append("connection \(stream): \(error)") }
                }
            }
            thread.start()
        }
        var rssPeak = rssStart ?? 0
        var finished = 0
        var second = 0
        while finished < settings.connections {
            if done.wait(timeout: .now() + .seconds(1)) == .success {
                finished += 1
                continue
            }
            second += 1
            let rss = server?.residentKiB()
            if let rss { rssPeak = max(rssPeak, rss) }
            log(
                "sustain: \(second) s  published \(published.load(ordering: .relaxed))  delivered "
                    + "\(subscribers.deliveredCount)" + (rss.map { "  server RSS \($0 / 1024) MB" } ?? ""))
        }
        let publishTime = (ContinuousClock.now - start).seconds
        let sent = published.load(ordering: .relaxed)
        let drained = subscribers.waitForDeliveries(sent * n, timeout: .seconds(10))
        let cpuAfter = server?.cpuSeconds()
        let othersAfter = settings.otherProcesses.map { ServerProcess(pid: $0.pid).cpuSeconds() }
        let toolCPU = (ServerProcess(pid: getpid()).cpuSeconds() ?? 0) - toolBefore
        let rssEnd = server?.residentKiB()
        if let rssEnd { rssPeak = max(rssPeak, rssEnd) }
        let delivered = subscribers.deliveredCount
        let report = subscribers.stop()
        var lines = [
            String(
                format: "sustain: %d events in %.1f s = %.0f events/s (asked %d/s) to %d subscribers",
                sent, publishTime, Double(sent) / publishTime, settings.rate, n),
            "delivered \(delivered)/\(sent * n)  lost \(max(0, sent * n - delivered))  out of order \(report.outOfOrder)"
                + (drained ? "" : "  (not all delivered within 10 s of the end)"),
            String(
                format: "latency (request written -> frame read): p50 %.2f ms  p99 %.2f ms  max %.2f ms",
                report.milliseconds(at: 0.5), report.milliseconds(at: 0.99), report.milliseconds(at: 1)),
        ]
        if let rssStart, let rssEnd {
            lines.append("server RSS: start \(rssStart / 1024) MB  peak \(rssPeak / 1024) MB  end \(rssEnd / 1024) MB")
        }
        if let cpuBefore, let cpuAfter, delivered > 0 {
            let cpu = cpuAfter - cpuBefore
            lines.append(
                String(
                    format: "server CPU: %.2f s = %.0f%% of a core; %.2f µs per event published", cpu,
                    cpu * 100 / publishTime, cpu * 1e6 / Double(max(1, sent))))
        }
        for (index, process) in settings.otherProcesses.enumerated() {
            guard let before = othersBefore[index], let after = othersAfter[index] else { continue }
            lines.append(
                String(
                    format: "%@ CPU: %.2f s = %.0f%% of a core; %.2f µs per event published",
                    process.name as NSString, after - before, (after - before) * 100 / publishTime,
                    (after - before) * 1e6 / Double(max(1, sent))))
        }
        lines.append(
            String(
                format: "this tool's CPU (publishers and subscribers, same cores): %.2f s = %.0f%% of a core",
                toolCPU, toolCPU * 100 / publishTime))
        for failure in failures.withLock({ $0 }) { lines.append("publisher failed: \(failure)") }
        return lines.joined(separator: "\n")
    }
}
