import Foundation
import PushtopTestSupport
import Testing
@testable import PusherChannels
import PusherProtocol
import Synchronization

/// `readCoalescing`: a busy socket is read at most every interval, so one hand-off carries many frames; nothing is
/// lost or reordered, and a quiet socket is still read at once.
@Suite(.timeLimit(.minutes(1))) struct ReadCoalescingTests {
    /// Counts the batches `onEventBatch` hands over and the channel events in them.
    final class BatchCounter: Sendable {
        private let state = Mutex<(batches: Int, names: [String])>((0, []))
        func add(_ batch: [ClientEvent]) {
            let events = batch.compactMap { if case .event(let e) = $0, e.name == "tick" { e.data?.stringValue } else { nil } }
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
    func stream(count: Int, readCoalescing: Double, tls: Bool = false, lockstep: Bool = false) async throws
        -> (batches: Int, data: [String], seconds: Double)
    {
        let certificates = try TestCertificates.make()
        let server = try await ScriptedPusherServer.start(
            transport: .init(tls: tls ? try certificates.serverTLSConfiguration() : nil))
        defer { server.stop() }
        var options = PusherClientOptions(key: "test-key", host: "127.0.0.1", port: server.port,
                                          connection: ConnectionConfiguration(useTLS: tls),
                                          caFile: tls ? certificates.caFile : nil)
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
    func mostReads(_ seconds: Double, interval: Double) -> Int { Int(seconds / interval) + 2 }

    @Test func aBusySocketIsReadAtMostEveryInterval() async throws {
        let count = 150
        let paced = try await stream(count: count, readCoalescing: 0.05)
        #expect(paced.data == (0..<count).map { "n\($0)" }, "every event, in order")
        // 150 events over at least 300 ms, read at most every 50 ms: a handful of reads, not one per event.
        #expect(paced.batches <= mostReads(paced.seconds, interval: 0.05),
            "\(paced.batches) batches for \(count) events in \(paced.seconds) s")
        #expect(mostReads(paced.seconds, interval: 0.05) < count, "the premise: fewer reads than events are allowed")
    }

    @Test func overTLSTheSocketIsPacedBelowTheTLSLayer() async throws {
        let count = 150
        let paced = try await stream(count: count, readCoalescing: 0.05, tls: true)
        #expect(paced.data == (0..<count).map { "n\($0)" }, "every event, in order, decrypted")
        #expect(paced.batches <= mostReads(paced.seconds, interval: 0.05),
            "\(paced.batches) batches for \(count) events in \(paced.seconds) s")
        #expect(mostReads(paced.seconds, interval: 0.05) < count, "the premise: fewer reads than events are allowed")
    }

    /// In lockstep (each event sent once the one before it was handed over), so a loaded machine cannot make the
    /// sender outrun the reader: without coalescing every round trip is read at once; with the 50 ms interval of
    /// the tests above, 150 round trips would take at least 7.5 s.
    @Test func withoutCoalescingEachFrameIsHandedOverAsItArrives() async throws {
        let count = 150
        let unpaced = try await stream(count: count, readCoalescing: 0, lockstep: true)
        #expect(unpaced.data == (0..<count).map { "n\($0)" })
        #expect(unpaced.batches == count, "\(unpaced.batches) batches for \(count) events sent in lockstep")
        #expect(unpaced.seconds < 5, "\(count) round trips took \(unpaced.seconds) s: reads are being paced")
    }

    @Test func aQuietSocketIsReadAtOnce() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        var options = PusherClientOptions(key: "test-key", host: "127.0.0.1", port: server.port,
                                          connection: ConnectionConfiguration(useTLS: false))
        options.transport.readCoalescing = 1
        let client = PusherClient(options: options)
        let recorder = EventRecorder(client)
        try await client.subscribe("ticker")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("ticker") }
        let conn = try await server.connection(1)
        // The premise: the socket has been quiet for longer than the interval.
        try await Task.sleep(for: .milliseconds(1200))
        let started = ContinuousClock.now
        conn.send(PusherMessage(event: "tick", channel: "ticker", data: .string("lone")))
        try await waitUntil(timeout: 10) { recorder.channelEvents.contains { $0.name == "tick" } }
        let waited = ContinuousClock.now - started
        #expect(waited < .milliseconds(500), "a lone event on a quiet socket is read at once, not after 1 s: \(waited)")
        await client.shutdown()
    }
}
