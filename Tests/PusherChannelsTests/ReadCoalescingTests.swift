import Foundation
import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// `readCoalescing`: a busy socket is read at most every interval, so one hand-off carries many frames; nothing is
/// lost or reordered, and a quiet socket is still read at once.
@Suite(.timeLimit(.minutes(1))) struct ReadCoalescingTests {
    @Test func aBusySocketIsReadAtMostEveryInterval() async throws {
        let count = 150
        let paced = try await CoalescedStream.run(count: count, readCoalescing: 0.05)
        // 150 events over at least 300 ms, read at most every 50 ms: a handful of reads, not one per event.
        CoalescedStream.expectPaced(paced, count: count, interval: 0.05, "every event, in order")
    }

    /// In lockstep (each event sent once the one before it was handed over), so a loaded machine cannot make the
    /// sender outrun the reader: without coalescing every round trip is read at once; with the 50 ms interval of
    /// the tests above, 150 round trips would take at least 7.5 s.
    @Test func withoutCoalescingEachFrameIsHandedOverAsItArrives() async throws {
        let count = 150
        let unpaced = try await CoalescedStream.run(count: count, readCoalescing: 0, lockstep: true)
        #expect(unpaced.data == (0..<count).map { "n\($0)" })
        #expect(unpaced.batches == count, "\(unpaced.batches) batches for \(count) events sent in lockstep")
        #expect(unpaced.seconds < 5, "\(count) round trips took \(unpaced.seconds) s: reads are being paced")
    }

    @Test func aQuietSocketIsReadAtOnce() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        var options = PusherClientOptions(
            key: "test-key", host: "127.0.0.1", port: server.port,
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
