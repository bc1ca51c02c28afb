import Foundation
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PusherChannels

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /metrics` after real traffic, and `pushtop serve --log-format json`.
@Suite(.timeLimit(.minutes(1))) struct ServeMetricsTests {
    private func scrape(_ server: EmbeddedServer) async throws -> [String: Double] {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "\(server.httpURL)/metrics")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(
            (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain") == true)
        var values: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    @Test func metricsCountConnectionsMessagesDeliveriesAndAuthFailures() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        func client(secret: String) -> PusherClient {
            PusherClient(
                options: PusherClientOptions(
                    key: app.key, host: "127.0.0.1", port: server.port,
                    connection: ConnectionConfiguration(useTLS: false),
                    authorizer: SecretAuthorizer(key: app.key, secret: secret, userID: "u")))
        }
        let good = client(secret: app.secret)
        let goodEvents = EventRecorder(good)
        try await good.subscribe("orders")
        await good.connect()
        try await goodEvents.wait { if case .subscribed("orders", _) = $0 { return true } else { return false } }

        let bad = client(secret: "wrong")
        let badEvents = EventRecorder(bad)
        try await bad.subscribe("private-x")
        await bad.connect()
        try await badEvents.wait {
            if case .subscriptionError("private-x", _, _) = $0 { return true } else { return false }
        }

        for n in 1...3 {
            try await server.hub.publish(PublishRequest(channels: ["orders"], name: "created", data: "{\"n\":\(n)}"))
        }
        try await goodEvents.wait {
            if case .event(let e) = $0 { return e.dataText == "{\"n\":3}" } else { return false }
        }

        let metrics = try await scrape(server)
        #expect(metrics["pushtop_connections"] == 2)
        #expect(metrics["pushtop_channels"] == 1, "orders is occupied; the refused private-x is not")
        #expect(metrics["pushtop_connections_opened_total"] == 2)
        #expect(metrics["pushtop_events_published_total"] == 3)
        #expect(metrics["pushtop_deliveries_total"] == 3)
        #expect(metrics["pushtop_auth_failures_total"] == 1)
        #expect((metrics["pushtop_messages_in_total"] ?? 0) >= 2, "two pusher:subscribe")
        #expect((metrics["pushtop_messages_out_total"] ?? 0) >= 7, "2 established, 1 subscribed, 2 errors, 3 events")
        #expect(metrics["pushtop_slow_consumer_closes_total"] == 0)
        #expect(metrics["pushtop_webhook_failures_total"] == 0)
        #expect(metrics["pushtop_inbox_drops_total"] == 0)

        // Counters only grow between scrapes; the connection gauge follows disconnects.
        await bad.shutdown()
        try await server.hub.publish(PublishRequest(channels: ["orders"], name: "created", data: "{}"))
        try await waitUntil(timeout: 10, "the refused client's connection to close") {
            await server.hub.connectionCount == 1
        }
        let later = try await scrape(server)
        #expect(later["pushtop_connections"] == 1)
        #expect(later["pushtop_deliveries_total"] == 4)
        #expect(later["pushtop_auth_failures_total"] == 1)

        await good.shutdown()
        await server.shutdown()
    }

    @Test func serveWritesOneJSONObjectPerLogLineAndServesMetrics() async throws {
        let serve = try PushtopProcess(["serve", "--port", "0", "--log-format", "json", "--log-level", "info"])
        try await waitUntil(timeout: 20, "serve to print where it listens") { !serve.lines.isEmpty }
        #expect(serve.lines.contains { $0.contains("metrics: http://127.0.0.1:") && $0.hasSuffix("/metrics") })
        try await waitUntil(timeout: 10, "a log line") { serve.stderr.contains("listening") }
        serve.signal(SIGTERM)
        #expect(try await serve.exitCode() == 0)
        let lines = serve.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] is String && object?["message"] is String && object?["time"] is String, "\(line)")
        }
        #expect(lines.contains { $0.contains(#""message":"listening""#) && $0.contains(#""label":"pushtop.server""#) })
    }
}
