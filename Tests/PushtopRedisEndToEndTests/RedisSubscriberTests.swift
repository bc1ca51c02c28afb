import NIOCore
import PushtopRedis
import PushtopTestSupport
import Testing

/// The pub/sub subscriber against a real redis-server.
@Suite struct RedisSubscriberTests {
    private func subscriber(_ url: String, _ received: Collected<RedisPubSubMessage>) throws -> RedisSubscriber {
        RedisSubscriber(configuration: try testConfiguration(url, name: "subscriber"), logger: testLogger) {
            received.append($0)
        }
    }

    /// A redis-server (it lives as long as the fixture), a client of it, and a subscriber to it that is up (with
    /// what it receives).
    private func upAndPublishing() async throws -> (
        server: RedisServerProcess, redis: RedisClient, subscriber: RedisSubscriber,
        received: Collected<RedisPubSubMessage>
    ) {
        let server = try await RedisServerProcess.start()
        let redis = try await connectedClient(server)
        let received = Collected<RedisPubSubMessage>()
        let subscriber = try subscriber(server.url, received)
        try await subscriber.waitUntilUp(timeout: .seconds(10))
        return (server, redis, subscriber, received)
    }

    @Test func deliversEveryMessageInPublishOrder() async throws {
        let fixture = try await upAndPublishing()
        let (redis, subscriber, received) = (fixture.redis, fixture.subscriber, fixture.received)
        defer {
            Task {
                await subscriber.close(); await redis.close()
            }
        }
        try await subscriber.subscribe(["events", "other"])

        let replies = try await redis.send((0..<5_000).map { RedisCommand("PUBLISH", "events", .integer($0)) })
        #expect(replies.allSatisfy { $0 == .integer(1) }, "one subscriber received each")
        try await waitUntil(timeout: 30, "5,000 messages") { received.count == 5_000 }
        #expect(received.all.map { String(buffer: $0.payload) } == (0..<5_000).map(String.init))
        #expect(received.all.allSatisfy { $0.channel == "events" && $0.pattern == nil })
    }

    @Test func payloadsAreBinarySafe() async throws {
        let fixture = try await upAndPublishing()
        let (redis, subscriber, received) = (fixture.redis, fixture.subscriber, fixture.received)
        defer {
            Task {
                await subscriber.close(); await redis.close()
            }
        }
        try await subscriber.subscribe(["bin"])
        let payloads = [
            ByteBuffer(bytes: (0..<256).map(UInt8.init) + Array("\r\n*2\r\n$7\r\nmessage\r\n".utf8)),
            ByteBuffer(),
            ByteBuffer(repeating: 0xFF, count: 1 << 20),
        ]
        for payload in payloads { try await redis.publish(.bytes(payload), to: "bin") }
        try await waitUntil(timeout: 10, "3 messages") { received.count == 3 }
        #expect(received.all.map(\.payload) == payloads)
    }

    @Test func patternsMatchAndUnsubscribingStopsDelivery() async throws {
        let fixture = try await upAndPublishing()
        let (redis, subscriber, received) = (fixture.redis, fixture.subscriber, fixture.received)
        defer {
            Task {
                await subscriber.close(); await redis.close()
            }
        }
        try await subscriber.subscribe(patterns: ["app:*"])
        try await subscriber.subscribe(["direct"])
        try await redis.publish("1", to: "app:one")
        try await redis.publish("2", to: "elsewhere")
        try await redis.publish("3", to: "direct")
        try await waitUntil(timeout: 10, "two messages") { received.count == 2 }
        #expect(
            received.all[0]
                == RedisPubSubMessage(channel: "app:one", pattern: "app:*", payload: ByteBuffer(string: "1")))
        #expect(received.all[1] == RedisPubSubMessage(channel: "direct", payload: ByteBuffer(string: "3")))

        try await subscriber.unsubscribe(["direct"])
        try await subscriber.unsubscribe(patterns: ["app:*"])
        try await subscriber.subscribe(["marker"])
        #expect(subscriber.subscriptions.channels == ["marker"])
        #expect(try await redis.publish("4", to: "direct") == 0)
        try await redis.publish("5", to: "app:two")
        try await redis.publish("end", to: "marker")
        try await waitUntil(timeout: 10, "the marker") { received.count >= 3 }
        #expect(received.all.map { String(buffer: $0.payload) } == ["1", "3", "end"])
    }

    @Test func resubscribesAfterTheServerIsKilledAndRestarted() async throws {
        let server = try await RedisServerProcess.start()
        let received = Collected<RedisPubSubMessage>()
        let subscriber = try subscriber(server.url, received)
        defer { Task { await subscriber.close() } }
        try await subscriber.waitUntilUp(timeout: .seconds(10))
        try await subscriber.subscribe(["events"])
        try await subscriber.subscribe(patterns: ["node:*"])

        server.kill()
        try await waitUntil(timeout: 10, "the subscriber to see Redis down") {
            if case .down = subscriber.state { true } else { false }
        }
        // Subscribing while down is remembered, and done on the next connection.
        try await subscriber.subscribe(["late"])
        try await server.restart()
        try await subscriber.waitUntilUp(timeout: .seconds(10))

        let redis = try await connectedClient(server)
        defer { Task { await redis.close() } }
        #expect(try await redis.publish("a", to: "events") == 1)
        #expect(try await redis.publish("b", to: "node:7") == 1)
        #expect(try await redis.publish("c", to: "late") == 1)
        try await waitUntil(timeout: 10, "three messages after the restart") { received.count == 3 }
        #expect(received.all.map(\.channel) == ["events", "node:7", "late"])
    }
}
