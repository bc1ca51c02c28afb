import NIOCore
import PushtopRedis
import PushtopTestSupport
import Testing

/// A FaultProxy between the client and redis-server: the link cut, refused, or silent.
@Suite struct RedisPartitionTests {
    @Test func clientAndSubscriberComeBackWhenTheLinkIsRestored() async throws {
        let server = try await RedisServerProcess.start()
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        let url = "redis://127.0.0.1:\(proxy.port)"
        let redis = try await connectedClient(server, url)
        let received = Collected<RedisPubSubMessage>()
        let subscriber = RedisSubscriber(configuration: try testConfiguration(url), logger: testLogger) {
            received.append($0)
        }
        defer {
            Task {
                await subscriber.close(); await redis.close(); await proxy.shutdown()
            }
        }
        try await subscriber.waitUntilUp(timeout: .seconds(10))
        try await subscriber.subscribe(["events"])

        await proxy.takeDown(cutting: .reset)
        try await waitUntil(timeout: 10, "both connections down") {
            if case .down = redis.state, case .down = subscriber.state { true } else { false }
        }
        await #expect(throws: RedisError.self) { try await redis.ping() }

        try await proxy.bringUp()
        try await redis.waitUntilUp(timeout: .seconds(10))
        try await subscriber.waitUntilUp(timeout: .seconds(10))
        // At least one receiver: Redis may not have noticed yet that the cut-off connection is gone.
        #expect(try await redis.publish("after", to: "events") >= 1)
        try await waitUntil(timeout: 10, "the message after the partition") { received.count == 1 }
    }

    @Test func aSilentPartitionIsNoticedByTheHealthCheck() async throws {
        let server = try await RedisServerProcess.start()
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        let redis = RedisClient(
            configuration: try testConfiguration(
                "redis://127.0.0.1:\(proxy.port)", commandTimeout: .milliseconds(300), healthCheck: .milliseconds(100)),
            logger: testLogger)
        defer {
            Task {
                await redis.close(); await proxy.shutdown()
            }
        }
        try await redis.waitUntilUp(timeout: .seconds(10))
        let states = Collected<RedisConnectionState>()
        redis.onStateChange { states.append($0) }

        // No bytes pass for 2 s, but no connection is closed either: only the unanswered PING tells.
        let clock = ContinuousClock()
        let stalledAt = clock.now
        proxy.stall(for: .seconds(2), newConnections: true)
        try await waitUntil(timeout: 10, "the client to declare Redis down") {
            states.all.contains { if case .down = $0 { true } else { false } }
        }
        let down = states.all.first { if case .down = $0 { true } else { false } }
        let reason = try #require(
            { () -> String? in if case .down(let reason, _, _)? = down { reason } else { nil } }())
        #expect(reason.contains("no Redis reply to PING"))

        // Reconnection attempts meet the same silence: none is reported up before the stall ends.
        try await waitUntil(timeout: 10, "the client up again") { states.all.contains(.up) }
        #expect(try await redis.ping() == "PONG")
        #expect(clock.now - stalledAt >= .milliseconds(1900))
    }
}
