import Foundation
import PusherChannels

/// Opens `count` idle client connections to a server (for measuring the server's memory per connection).
enum IdleConnections {
    static func run(port: Int, count: Int, hold: Double) async throws -> String {
        let start = ContinuousClock.now
        var clients: [PusherClient] = []
        clients.reserveCapacity(count)
        for i in 0..<count {
            let client = PusherClient(
                options: PusherClientOptions(
                    key: "pushtop-key", host: "127.0.0.1", port: port,
                    connection: ConnectionConfiguration(useTLS: false, reconnect: .init(kind: .none))))
            await client.connect()
            clients.append(client)
            if i % 500 == 499 { try await Task.sleep(for: .milliseconds(20)) }
        }
        var connected = 0
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            connected = 0
            for c in clients where await c.state == .connected { connected += 1 }
            if connected == count { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let took = ContinuousClock.now - start
        print("idle connections: \(connected) of \(count) connected in \(took); holding \(hold) s")
        try await Task.sleep(for: .seconds(hold))
        for c in clients { await c.shutdown() }
        return "idle connections                     \(connected)/\(count)"
    }
}
