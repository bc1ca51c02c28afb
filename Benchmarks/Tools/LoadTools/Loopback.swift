import BenchmarkSupport
import PusherChannels

/// Frames from a loopback WebSocket generator through the client actor to one batch consumer: the bulk rate.
enum Loopback {
    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    static func rate(_ n: Int, _ s: Double) -> String {
        let perSecond = Double(n) / max(s, 1e-9)
        let micros = s / Double(max(n, 1)) * 1e6
        return "\(Int(perSecond.rounded()))/s (\((micros * 1000).rounded() / 1000) µs each)"
    }

    static func delivery(_ n: Int) async throws -> String {
        let server = try await BulkFrameServer.start(frame: SampleFrames.event, count: n)
        let client = PusherClient(
            options: PusherClientOptions(
                key: "bench", host: "127.0.0.1", port: server.port, connection: ConnectionConfiguration(useTLS: false)))
        let batches = client.eventBatches(bufferSize: 1 << 22)
        // The generator sends `ticker` events: only the channels a client holds are delivered.
        try await client.subscribe("ticker")
        var received = 0
        var batchCount = 0
        var first: ContinuousClock.Instant?
        await client.connect()
        for await batch in batches {
            for event in batch {
                if case .event = event {
                    if first == nil { first = .now }
                    received += 1
                }
            }
            batchCount += 1
            if received >= n { break }
        }
        let s = seconds(ContinuousClock.now - (first ?? .now))
        await client.shutdown()
        await server.stop()
        return
            "loopback WS -> client -> consumer   \(rate(received, s)), \(batchCount) batches, dropped \(batches.droppedCount)"
    }
}
