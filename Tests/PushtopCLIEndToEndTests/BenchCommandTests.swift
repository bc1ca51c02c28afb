import Foundation
import PusherChannels
import PushtopServer
import PushtopTestSupport
import Testing

/// A short smoke run of `pushtop bench` so it cannot rot (figures are not asserted: this is not a timing test).
@Suite(.timeLimit(.minutes(1))) struct BenchCommandTests {
    @Test func benchAgainstTheEmbeddedServerPrintsAJSONResult() async throws {
        let bench = try PushtopProcess(["bench", "--rate", "200", "--duration", "1", "--subscribers", "3", "--json"])
        #expect(try await bench.exitCode(timeout: 30) == 0, "stderr: \(bench.stderr)")
        let result = try #require(bench.objects.first)
        #expect(result["published"] as? Int == 200)
        #expect(result["expected"] as? Int == 600)
        #expect(result["received"] as? Int == 600)
        #expect(result["delivery_ratio"] as? Double == 1)
        let latency = try #require(result["latency_ms"] as? [String: Double])
        #expect(Set(latency.keys) == ["p50", "p90", "p99", "max"])
        #expect(bench.stderr.contains("bench:"), "a progress line while it runs")
    }

    @Test func benchAgainstAServerGivenByCredentials() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let bench = try PushtopProcess([
            "bench", "--key", app.key, "--secret", app.secret, "--app-id", app.id, "--host", "127.0.0.1",
            "--port", String(server.port), "--no-tls", "--rate", "100", "--duration", "0.5", "--subscribers", "2",
        ])
        #expect(try await bench.exitCode(timeout: 30) == 0, "stderr: \(bench.stderr)")
        #expect(bench.lines.contains { $0.contains("deliveries        100 of 100") }, "\(bench.lines)")
        await server.shutdown()
    }

    /// A server that answers publishes at once and delivers them late (a busy one): bench waits for the deliveries
    /// instead of counting what came within a second of its first publish.
    /// (A `serve` process, not a server in this busy test process: what is late here is the proxy's doing.)
    @Test func deliveriesThatComeWellAfterThePublishesAreCounted() async throws {
        let server = try await ServeNode.start()
        let late = try await FaultProxy.start(upstreamPort: server.port)
        late.shape(latency: .milliseconds(1500))
        let bench = try PushtopProcess([
            "bench", "--key", server.key, "--secret", server.secret, "--app-id", server.appID, "--host", "127.0.0.1",
            "--port", String(late.port), "--api-port", String(server.port), "--no-tls", "--rate", "100",
            "--duration", "0.5", "--subscribers", "2",
        ])
        #expect(try await bench.exitCode(timeout: 55) == 0, "stderr: \(bench.stderr)")
        #expect(bench.lines.contains { $0.contains("deliveries        100 of 100") }, "\(bench.lines)")
        await late.shutdown()
        await server.stop()
    }

    /// A server that never confirms a subscription: bench says so and publishes nothing, instead of publishing to
    /// subscribers it then counts as missing every event.
    @Test func subscribersNeverConfirmedStopTheRunWithAClearMessage() async throws {
        var behavior = ScriptedPusherServer.Behavior()
        behavior.acceptSubscriptions = false
        let server = try await ScriptedPusherServer.start(
            behavior, transport: .init(apps: [.init(id: "1", key: "test-key", secret: "test-secret")]))
        defer { server.stop() }
        let bench = try PushtopProcess([
            "bench", "--key", "test-key", "--secret", "test-secret", "--app-id", "1", "--host", "127.0.0.1",
            "--port", String(server.port), "--no-tls", "--rate", "10", "--duration", "0.5", "--subscribers", "2",
        ])
        #expect(try await bench.exitCode(timeout: 45) == 1)
        #expect(bench.stderr.contains("not all subscribed within 15 s"), "stderr: \(bench.stderr)")
        #expect(server.httpRequests.isEmpty, "nothing was published")
    }

    @Test func zeroSubscribersOnlyPublishesForOtherConsumers() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let listener = PusherClient(
            options: PusherClientOptions(
                key: app.key, host: "127.0.0.1", port: server.port, connection: ConnectionConfiguration(useTLS: false)))
        let events = listener.eventBatches()
        try await listener.subscribe("feed")
        await listener.connect()
        var received = 0
        var subscribed = false
        for await batch in events {
            for event in batch {
                if case .subscribed = event { subscribed = true }
                if case .event(let e) = event, e.name == "bench" { received += 1 }
            }
            if subscribed { break }
        }
        let bench = try PushtopProcess([
            "bench", "--key", app.key, "--secret", app.secret, "--app-id", app.id, "--host", "127.0.0.1",
            "--port", String(server.port), "--no-tls", "--rate", "100", "--duration", "0.5", "--subscribers", "0",
            "--channel", "feed", "--json",
        ])
        #expect(try await bench.exitCode(timeout: 30) == 0, "stderr: \(bench.stderr)")
        let result = try #require(bench.objects.first)
        #expect(result["published"] as? Int == 50)
        #expect(result["expected"] as? Int == 0)
        for await batch in events {
            for event in batch {
                if case .event(let e) = event, e.name == "bench" { received += 1 }
            }
            if received >= 50 { break }
        }
        #expect(received == 50, "the channel's other subscriber got every published event")
        await listener.shutdown()
        await server.shutdown()
    }

    @Test func wrongSecretFailsWithAClearMessage() async throws {
        let server = try await EmbeddedServer.start(ServerConfiguration(port: 0))
        let app = server.configuration.app
        let bench = try PushtopProcess([
            "bench", "--key", app.key, "--secret", "nope", "--app-id", app.id, "--host", "127.0.0.1",
            "--port", String(server.port), "--no-tls", "--rate", "50", "--duration", "0.2", "--subscribers", "1",
            "--json",
        ])
        #expect(try await bench.exitCode(timeout: 30) == 1)
        #expect(bench.stderr.contains("every publish failed"), "stderr: \(bench.stderr)")
        #expect(bench.stderr.contains("401"), "stderr: \(bench.stderr)")
        await server.shutdown()
    }

    @Test func usageErrorsExit64() async throws {
        try await PushtopProcess.expectUsageError(["bench", "--key", "k"], mentioning: "--secret")
    }
}
