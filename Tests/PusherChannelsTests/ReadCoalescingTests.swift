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
    /// sender outrun the reader: without coalescing every frame is a hand-over of its own, in order. Paced reads
    /// would hand each over alone too, but an interval apart at least: paced at 0.2 s, 150 round trips take 30 s,
    /// what a user would notice, and six times what they took unpaced on a busy 2-core runner (5.1 s).
    @Test func withoutCoalescingEachFrameIsHandedOverAsItArrives() async throws {
        let count = 150
        let unpaced = try await CoalescedStream.run(count: count, readCoalescing: 0, lockstep: true)
        #expect(unpaced.data == (0..<count).map { "n\($0)" })
        #expect(unpaced.batches == count, "\(unpaced.batches) batches for \(count) events sent in lockstep")
        let paced = Double(count) * 0.2
        #expect(unpaced.seconds < paced, "\(count) round trips took \(unpaced.seconds) s: reads are being paced")
    }

    @Test func aQuietSocketIsReadAtOnce() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        var options = PusherClientOptions(
            key: "test-key", host: "127.0.0.1", port: server.port,
            connection: ConnectionConfiguration(useTLS: false))
        // An interval long enough that one loopback round trip on a loaded machine stays well within it.
        let interval = 3.0
        options.transport.readCoalescing = interval
        let client = PusherClient(options: options)
        let recorder = EventRecorder(client)
        try await client.subscribe("ticker")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("ticker") }
        let conn = try await server.connection(1)
        // The premise: the socket has been quiet for longer than the interval (time deliberately let pass).
        try await Task.sleep(for: .seconds(interval + 0.2))
        let started = ContinuousClock.now
        conn.send(PusherMessage(event: "tick", channel: "ticker", data: .string("lone")))
        try await waitUntil(timeout: LoadedMachine.bound(interval)) {
            recorder.channelEvents.contains { $0.name == "tick" }
        }
        let waited = ContinuousClock.now - started
        #expect(
            waited < .seconds(interval),
            "a lone event on a quiet socket is read at once, not an interval (\(interval) s) later: \(waited)")
        await client.shutdown()
    }
}
