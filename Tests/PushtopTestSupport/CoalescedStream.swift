import Foundation
import PusherChannels
import PusherProtocol
import Synchronization
import Testing

/// A stream of events to one client with `readCoalescing` (the read-coalescing tests, with and without TLS).
public enum CoalescedStream {
    /// Counts the batches `onEventBatch` hands over and the channel events in them.
    final class BatchCounter: Sendable {
        private let state = Mutex<(batches: Int, names: [String])>((0, []))
        func add(_ batch: [ClientEvent]) {
            let events = batch.compactMap {
                if case .event(let e) = $0, e.name == "tick" { e.data?.stringValue } else { nil }
            }
            guard !events.isEmpty else { return }
            state.withLock {
                $0.batches += 1
                $0.names += events
            }
        }
        var snapshot: (batches: Int, data: [String]) { state.withLock { ($0.batches, $0.names) } }
    }

    /// Sends `count` events about 2 ms apart (or, in `lockstep`, each once the one before it was handed over) and
    /// returns how many batches they arrived in, and how long it took from the first send to the last arrival.
    public static func run(count: Int, readCoalescing: Double, tls: Bool = false, lockstep: Bool = false) async throws
        -> (batches: Int, data: [String], seconds: Double)
    {
        // Certificates (made with `openssl`, a child process) only for TLS: the unit tier starts no process.
        let certificates = tls ? try TestCertificates.make() : nil
        let server = try await ScriptedPusherServer.start(
            transport: .init(tls: try certificates?.serverTLSConfiguration()))
        defer { server.stop() }
        var options = PusherClientOptions(
            key: "test-key", host: "127.0.0.1", port: server.port,
            connection: ConnectionConfiguration(useTLS: tls),
            caFile: certificates?.caFile)
        options.transport.readCoalescing = readCoalescing
        let client = PusherClient(options: options)
        let counter = BatchCounter()
        client.onEventBatch { counter.add($0) }
        let recorder = EventRecorder(client)
        try await client.subscribe("ticker")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("ticker") }
        let conn = try await server.connection(1)
        let started = ContinuousClock.now
        for i in 0..<count {
            conn.send(PusherMessage(event: "tick", channel: "ticker", data: .string("n\(i)")))
            if lockstep {
                try await waitUntil(timeout: 10) { counter.snapshot.data.count == i + 1 }
            } else {
                try await Task.sleep(for: .milliseconds(2))  // the stream's pace, not a wait for a result
            }
        }
        try await waitUntil(timeout: 10) { counter.snapshot.data.count == count }
        let took = (ContinuousClock.now - started) / .seconds(1)
        await client.shutdown()
        let (batches, data) = counter.snapshot
        return (batches, data, took)
    }

    /// The most reads a stream of `seconds` allows when the socket is read at most every `interval`: one per
    /// interval, and one at each end. A loaded machine that slows the sender stretches `seconds`, not the rule.
    public static func mostReads(_ seconds: Double, interval: Double) -> Int { Int(seconds / interval) + 2 }

    /// Expects every one of `count` events in order, and at most one read per `interval` (plus one at each end).
    public static func expectPaced(
        _ paced: (batches: Int, data: [String], seconds: Double), count: Int, interval: Double, _ what: Comment,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(paced.data == (0..<count).map { "n\($0)" }, what, sourceLocation: sourceLocation)
        #expect(
            paced.batches <= mostReads(paced.seconds, interval: interval),
            "\(paced.batches) batches for \(count) events in \(paced.seconds) s", sourceLocation: sourceLocation)
        #expect(
            mostReads(paced.seconds, interval: interval) < count,
            "the premise: fewer reads than events are allowed", sourceLocation: sourceLocation)
    }
}

extension PusherClient {
    /// A client of the app `test-key` on loopback (or `host`), reconnecting quickly (50-200 ms, no jitter).
    public static func loopbackTestClient(
        port: Int, host: String = "127.0.0.1", useTLS: Bool = false, caFile: String? = nil, keepRawFrames: Bool = false
    ) -> PusherClient {
        PusherClient(
            options: PusherClientOptions(
                key: "test-key", host: host, port: port,
                connection: ConnectionConfiguration(
                    useTLS: useTLS, reconnect: .init(minDelay: 0.05, maxDelay: 0.2, jitter: 0)),
                caFile: caFile, keepRawFrames: keepRawFrames))
    }
}
