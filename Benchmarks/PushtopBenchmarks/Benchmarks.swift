import Foundation
import PusherChannels

/// The micro-benchmarks: each returns a line of figures.
enum Benchmarks {
    static let frame = #"{"event":"price-update","channel":"ticker","data":"{\"symbol\":\"ACME\",\"price\":101.25,\"volume\":1200,\"ts\":1732190000123}"}"#

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    static func rate(_ n: Int, _ s: Double) -> String {
        String(format: "%.0f/s (%.3f µs each)", Double(n) / s, s / Double(n) * 1e6)
    }

    static func frameDecode(_ n: Int) -> String {
        var sink = 0
        let t = seconds {
            for _ in 0..<n {
                if let m = try? PusherMessage(decoding: frame) { sink &+= m.event.utf8.count }
            }
        }
        precondition(sink > 0)
        return "frame decode (outer frame)           \(rate(n, t))"
    }

    static func frameDecodeWithData(_ n: Int) -> String {
        var sink = 0
        let t = seconds {
            for _ in 0..<n {
                if let m = try? PusherMessage(decoding: frame), case .object(let o)? = m.dataJSON { sink &+= o.count }
            }
        }
        precondition(sink > 0)
        return "frame decode + data JSON             \(rate(n, t))"
    }

    static func rosterUpdates(_ n: Int) -> String {
        var roster = PresenceRoster()
        for i in 0..<100 { roster.add(PresenceMember(userID: "user-\(i)", userInfo: ["name": .string("User \(i)")])) }
        let t = seconds {
            for i in 0..<n {
                let id = "user-\(i % 150)"
                if roster.remove(userID: id) == nil { roster.add(PresenceMember(userID: id, userInfo: ["name": "x"])) }
            }
        }
        return "presence roster add/remove (~100)    \(rate(n, t))"
    }

    static func watchLines(_ n: Int) -> String {
        let event = ClientEvent.event(ChannelEvent(
            channel: "ticker", name: "price-update", dataText: #"{"symbol":"ACME","price":101.25,"volume":1200}"#))
        var bytes = 0
        let t = seconds {
            for _ in 0..<n { bytes &+= WatchLine.encode(event)?.utf8.count ?? 0 }
        }
        precondition(bytes > 0)
        return "watch line encoding (event)          \(rate(n, t))"
    }

    /// Frames from a loopback WebSocket generator through the client actor to one batch consumer.
    static func loopbackDelivery(_ n: Int) async throws -> String {
        let server = try await BulkFrameServer.start(frame: frame, count: n)
        let client = PusherClient(options: PusherClientOptions(
            key: "bench", host: "127.0.0.1", port: server.port, connection: ConnectionConfiguration(useTLS: false)))
        let batches = client.eventBatches(bufferSize: 1 << 22)
        var received = 0
        var batchCount = 0
        var first: ContinuousClock.Instant?
        // The client delivers only events of channels it holds (the server sends on "ticker" regardless).
        try await client.subscribe("ticker")
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
        let d = ContinuousClock.now - (first ?? .now)
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        await client.shutdown()
        await server.stop()
        return "loopback WS -> client -> consumer   \(rate(received, s)), \(batchCount) batches, dropped \(batches.droppedCount)"
    }
}
