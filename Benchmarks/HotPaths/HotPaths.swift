import Benchmark
import BenchmarkSupport
import Foundation
import Logging
import PusherChannels
import PushtopCLI
import PushtopServer

// Per-operation figures of the hot paths, measured with package-benchmark (ordo-one/benchmark):
//   swift package --package-path Benchmarks benchmark   # all, release build, tables of wall time, CPU, mallocs
//   swift package --package-path Benchmarks benchmark --filter 'Decode.*'
// Run the debug-built executable directly (`.build/debug/HotPaths`) for a smoke run: every benchmark
// once, no statistics (CI does this). Instructions need perf counters, which some virtual machines lack.

/// The metrics shown for the per-event micro-benchmarks.
let perEvent: [BenchmarkMetric] = [.wallClock, .mallocCountTotal, .instructions, .throughput]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: perEvent, scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 1_000)

    // What the client's transport does with each text frame: decode it from its bytes (the name cache warm).
    Benchmark("Decode/outer frame") { benchmark in
        let bytes = Array(SampleFrames.event.utf8)
        var decoder = PusherFrameDecoder()
        bytes.withUnsafeBytes { frame in
            for _ in benchmark.scaledIterations {
                blackHole(try? decoder.decode(frame))
            }
        }
    }

    // The same frame through `PusherMessage(decoding:)`: a `String` and a `JSONValue` tree (the transport's way
    // before issue 8; the server still decodes client frames so).
    Benchmark("Decode/outer frame from a String") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? PusherMessage(decoding: SampleFrames.event))
        }
    }

    Benchmark("Decode/outer frame + data JSON") { benchmark in
        let bytes = Array(SampleFrames.event.utf8)
        var decoder = PusherFrameDecoder()
        bytes.withUnsafeBytes { frame in
            for _ in benchmark.scaledIterations {
                blackHole((try? decoder.decode(frame))?.dataJSON)
            }
        }
    }

    // `watch`'s line for one event, appended to a reused output buffer as `watch` does.
    Benchmark("Watch/line encoding") { benchmark in
        let event = ClientEvent.event(
            ChannelEvent(channel: "ticker", name: "price-update", dataText: SampleFrames.eventData))
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        for _ in benchmark.scaledIterations {
            out.removeAll(keepingCapacity: true)
            blackHole(WatchLine.append(event, to: &out))
        }
    }

    Benchmark("Presence/roster add+remove") { benchmark in
        var roster = PresenceRoster()
        for i in 0..<100 { roster.add(PresenceMember(userID: "user-\(i)", userInfo: ["name": .string("User \(i)")])) }
        let member = PresenceMember(userID: "user-new", userInfo: ["name": "x"])
        for _ in benchmark.scaledIterations {
            roster.add(member)
            blackHole(roster.remove(userID: "user-new"))
        }
    }

    // The client's whole receive path over loopback: bytes on a socket -> frames -> PusherMessage -> client actor ->
    // one batch consumer. One iteration receives a million events (the connection's set-up is under 0.1 % of it);
    // metrics are per event (scaled).
    Benchmark(
        "Client/loopback receive (per event)",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .contextSwitches, .syscalls, .throughput],
            scalingFactor: .mega, maxDuration: .seconds(10), maxIterations: 5)
    ) { benchmark in
        // The smoke run (scripts/bench-smoke) sets a small count: enough to exercise the path in a second.
        let count =
            ProcessInfo.processInfo.environment["HOTPATHS_LOOPBACK_EVENTS"].flatMap(Int.init)
            ?? benchmark.scaledIterations.count
        let server = try await BulkFrameServer.start(frame: SampleFrames.event, count: count)
        let client = PusherClient(
            options: PusherClientOptions(
                key: "bench", host: "127.0.0.1", port: server.port, connection: ConnectionConfiguration(useTLS: false)))
        let batches = client.eventBatches(bufferSize: 1 << 22)
        // The generator sends `ticker` events: only the channels a client holds are delivered.
        try await client.subscribe("ticker")
        var received = 0
        benchmark.startMeasurement()
        await client.connect()
        for await batch in batches {
            for event in batch {
                if case .event = event { received += 1 }
            }
            if received >= count { break }
        }
        benchmark.stopMeasurement()
        await client.shutdown()
        await server.stop()
    }

    // The server's fan-out: one event published in process to 1,000 subscribers on real sockets (minimal
    // counting clients in this process), until every one has it. One iteration is 1,000 deliveries; metrics are
    // per delivery (scaled), and include the subscribers' reads.
    Benchmark(
        "Server/fan-out to 1,000 subscribers (per delivery)",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .contextSwitches, .throughput],
            scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 200,
            setup: { try await FanOut.start() }, teardown: { await FanOut.stop() })
    ) { benchmark in
        guard let fanOut = FanOut.current else { return }
        for _ in 0..<max(1, benchmark.scaledIterations.count / 1000) {
            try await fanOut.publishOnce()
        }
    }
}

/// The server and subscribers of the fan-out benchmark, shared by its iterations.
final class FanOut: Sendable {
    nonisolated(unsafe) static var current: FanOut?
    static let subscriberCount = 1000

    let server: EmbeddedServer
    let subscribers: RawSubscribers

    init(server: EmbeddedServer, subscribers: RawSubscribers) {
        self.server = server
        self.subscribers = subscribers
    }

    static func start() async throws {
        var logger = Logger(label: "hotpaths.server")
        logger.logLevel = .warning
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0), logger: logger)
        let count = Int(ProcessInfo.processInfo.environment["HOTPATHS_FANOUT_SUBSCRIBERS"] ?? "") ?? subscriberCount
        let subscribers = try await RawSubscribers.connect(
            count: count, port: server.port, key: server.configuration.app.key, channel: "fan-out")
        current = FanOut(server: server, subscribers: subscribers)
    }

    static func stop() async {
        guard let fanOut = current else { return }
        current = nil
        await fanOut.subscribers.close()
        await fanOut.server.shutdown()
    }

    let subscriberTotal =
        Int(ProcessInfo.processInfo.environment["HOTPATHS_FANOUT_SUBSCRIBERS"] ?? "") ?? subscriberCount

    func publishOnce() async throws {
        try await server.hub.publish(PublishRequest(channels: ["fan-out"], name: "tick", data: SampleFrames.eventData))
        try await subscribers.waitForFrames(subscriberTotal)
    }
}
