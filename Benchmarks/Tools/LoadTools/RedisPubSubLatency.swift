import BenchmarkSupport
import Foundation
import Logging
import NIOCore
import PushtopRedis
import Synchronization

/// `pushtop-benchmarks redis-pubsub`: the Redis hop of cross-node delivery alone. A `RedisClient` publishes
/// numbered, timestamped messages at a steady rate to a running `redis-server`; a `RedisSubscriber` in the same
/// process receives them. Prints the latency publish → receive (one monotonic clock), lost or reordered
/// messages, and the CPU per message of this process and, with `--server-pid`, of `redis-server`.
enum RedisPubSubLatency {
    struct Settings {
        var port = 6379
        var rate = 1000
        var seconds = 5.0
        var payloadBytes = 200
        var serverPID: Int32?
    }

    private struct Received {
        var latencies: [UInt64] = []
        var next: UInt64 = 0
        var outOfOrder = 0
    }

    static func run(_ settings: Settings) async throws -> String {
        var logger = Logger(label: "pushtop-benchmarks.redis")
        logger.logLevel = .warning
        let configuration = RedisConfiguration(url: RedisURL(host: "127.0.0.1", port: settings.port))
        let received = Mutex(Received())
        let subscriber = RedisSubscriber(configuration: configuration, logger: logger) { message in
            let now = monotonicNanoseconds()
            guard let sequence = message.payload.getInteger(at: message.payload.readerIndex, as: UInt64.self),
                let sentAt = message.payload.getInteger(at: message.payload.readerIndex + 8, as: UInt64.self)
            else { return }
            received.withLock { state in
                state.latencies.append(now >= sentAt ? now - sentAt : 0)
                if sequence != state.next { state.outOfOrder += 1 }
                state.next = sequence + 1
            }
        }
        let client = RedisClient(configuration: configuration, logger: logger)
        defer {
            Task {
                await subscriber.close(); await client.close()
            }
        }
        try await subscriber.waitUntilUp(timeout: .seconds(5))
        try await client.waitUntilUp(timeout: .seconds(5))
        try await subscriber.subscribe(["bench"])

        let total = Int(Double(settings.rate) * settings.seconds)
        let padding = [UInt8](repeating: 0x78, count: max(0, settings.payloadBytes - 16))
        let gap = Duration.nanoseconds(1_000_000_000 / max(1, settings.rate))
        let server = settings.serverPID.map(ServerProcess.init(pid:))
        let serverBefore = server?.cpuSeconds()
        let toolBefore = ServerProcess(pid: getpid()).cpuSeconds() ?? 0
        let clock = ContinuousClock()
        var due = clock.now
        for sequence in 0..<total {
            var payload = ByteBuffer()
            payload.reserveCapacity(16 + padding.count)
            payload.writeInteger(UInt64(sequence))
            payload.writeInteger(monotonicNanoseconds())
            payload.writeBytes(padding)
            client.send(RedisCommand("PUBLISH", "bench", .bytes(payload))) { _ in }
            due += gap
            try await Task.sleep(until: due, clock: clock)
        }
        let deadline = clock.now + .seconds(5)
        while received.withLock({ $0.latencies.count }) < total, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let toolCPU = (ServerProcess(pid: getpid()).cpuSeconds() ?? 0) - toolBefore
        let serverCPU = zip(serverBefore, server?.cpuSeconds()).map { $1 - $0 }
        let state = received.withLock { $0 }
        let sorted = state.latencies.sorted()
        func milliseconds(at q: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let index = min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)
            return Double(sorted[max(0, index)]) / 1e6
        }
        var lines = [
            "redis-pubsub: \(state.latencies.count)/\(total) messages of \(settings.payloadBytes) bytes at "
                + "\(settings.rate)/s through redis-server on port \(settings.port)",
            String(
                format: "latency (publish -> subscriber callback): p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms",
                milliseconds(at: 0.5), milliseconds(at: 0.9), milliseconds(at: 0.99), milliseconds(at: 1)),
            String(
                format: "this process (client and subscriber): %.1f µs CPU per message",
                toolCPU * 1e6 / Double(max(1, total))),
        ]
        if state.outOfOrder > 0 { lines.append("out of order or lost: \(state.outOfOrder)") }
        if let serverCPU {
            lines.append(
                String(format: "redis-server: %.1f µs CPU per message", serverCPU * 1e6 / Double(max(1, total))))
        }
        return lines.joined(separator: "\n")
    }
}

private func zip(_ a: Double?, _ b: Double?) -> (Double, Double)? {
    guard let a, let b else { return nil }
    return (a, b)
}
