import NIOCore
import PushtopRedis
import PushtopTestSupport
import Testing

/// The command client against a real redis-server.
@Suite struct RedisClientTests {
    @Test func typedCommandsRoundTrip() async throws {
        let server = try await RedisServerProcess.start()
        let redis = try await connectedClient(server)
        defer { Task { await redis.close() } }

        #expect(try await redis.ping() == "PONG")
        #expect(try await redis.set("greeting", to: "héllo"))
        #expect(try await redis.getString("greeting") == "héllo")
        #expect(try await redis.get("missing") == nil)
        #expect(try await redis.set("greeting", to: "other", onlyIfAbsent: true) == false)
        #expect(try await redis.getString("greeting") == "héllo")

        let lease = Duration.seconds(30)
        try await redis.set("lease", to: "x", expiration: lease)
        let ttl = try #require(try await redis.timeToLive("lease"))
        // The lease as set, less what a loaded machine may take between the two commands.
        #expect(ttl > lease - .seconds(LoadedMachine.slack) && ttl <= lease)
        #expect(try await redis.expire("lease", after: .milliseconds(1500)))
        #expect(try #require(try await redis.timeToLive("lease")) <= .milliseconds(1500))
        #expect(try await redis.delete(["lease", "greeting", "missing"]) == 2)

        #expect(try await redis.increment("n") == 1)
        #expect(try await redis.increment("n", by: 10) == 11)
        #expect(try await redis.decrement("n") == 10)

        #expect(
            try await redis.hashSet("members", ["u1": "{\"name\":\"A\"}", "u2": .bytes(ByteBuffer(bytes: [0, 255]))])
                == 2)
        let members = try await redis.hashGetAll("members")
        #expect(members == ["u1": ByteBuffer(string: "{\"name\":\"A\"}"), "u2": ByteBuffer(bytes: [0, 255])])
        #expect(try await redis.hashDelete("members", fields: ["u1", "nope"]) == 1)
        #expect(try await redis.hashGetAll("nothing") == [:])

        #expect(try await redis.setAdd("nodes", members: ["a", "b", "c"]) == 3)
        #expect(try await redis.setRemove("nodes", members: ["b"]) == 1)
        #expect(Set(try await redis.setMembers("nodes")) == ["a", "c"])

        let script = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
        #expect(try await redis.eval(script, keys: ["counter"], arguments: [5]) == .integer(5))
        let results = try await redis.transaction([RedisCommand("INCR", "t"), RedisCommand("GET", "t")])
        #expect(results == [.integer(1), .bulkString("1")])
    }

    @Test func binaryValuesComeBackByteForByte() async throws {
        let server = try await RedisServerProcess.start()
        let redis = try await connectedClient(server)
        defer { Task { await redis.close() } }
        let bytes = ByteBuffer(bytes: (0..<256).map(UInt8.init) + Array("\r\n$-1\r\n*3\r\n".utf8))
        try await redis.set("binary", to: .bytes(bytes))
        #expect(try await redis.get("binary") == bytes)
        let large = ByteBuffer(repeating: 0x7A, count: 4 << 20)
        try await redis.set("large", to: .bytes(large))
        #expect(try await redis.get("large") == large)
    }

    @Test func scanFindsEveryMatchingKeyAndNoOther() async throws {
        let server = try await RedisServerProcess.start()
        let redis = try await connectedClient(server)
        defer { Task { await redis.close() } }
        _ = try await redis.send((0..<1500).map { RedisCommand("SET", .string("app:1:presence:\($0)"), "x") })
        _ = try await redis.send((0..<300).map { RedisCommand("SET", .string("app:2:presence:\($0)"), "x") })
        let keys = try await redis.scanKeys(matching: "app:1:presence:*", count: 100)
        #expect(keys.count == 1500)
        #expect(Set(keys) == Set((0..<1500).map { "app:1:presence:\($0)" }))
    }

    @Test func errorRepliesThrowWithTheCommandAndTheConnectionStaysUsable() async throws {
        let server = try await RedisServerProcess.start()
        let redis = try await connectedClient(server)
        defer { Task { await redis.close() } }
        try await redis.set("text", to: "abc")
        await #expect(throws: RedisError.self) { try await redis.increment("text") }
        do {
            try await redis.hashSet("text", ["f": "v"])
        } catch let error as RedisError {
            guard case .server(let command, let message) = error else { throw error }
            #expect(command == "HSET")
            #expect(message.hasPrefix("WRONGTYPE"))
            #expect(error.description.hasPrefix("Redis refused HSET: WRONGTYPE"))
        }
        // In a pipelined batch, an error is one reply among the others.
        let replies = try await redis.send([RedisCommand("INCR", "text"), RedisCommand("GET", "text")])
        #expect(replies[0].errorMessage?.hasPrefix("ERR") == true)
        #expect(replies[1] == .bulkString("abc"))
        #expect(try await redis.ping() == "PONG")
    }

    @Test func pipelinesTenThousandCommandsInOrder() async throws {
        let server = try await RedisServerProcess.start()
        let redis = try await connectedClient(server)
        defer { Task { await redis.close() } }

        // One batch, one write: replies in order.
        let replies = try await redis.send((0..<10_000).map { _ in RedisCommand("INCR", "batch") })
        #expect(replies == (1...10_000).map { RESPValue.integer(Int64($0)) })

        // 10,000 separate commands in flight at once (callback API, no task each): each reply matches its
        // command, in the order sent.
        let seen = Collected<Int64>()
        for _ in 0..<10_000 {
            redis.send(RedisCommand("INCR", "each")) { result in
                if case .success(.integer(let value)) = result { seen.append(value) }
            }
        }
        try await waitUntil(timeout: 30, "10,000 replies") { seen.count == 10_000 }
        #expect(seen.all == Array(1...10_000))

        // And as concurrent async calls: every reply distinct, none lost.
        let values = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<2_000 { group.addTask { try await redis.send(RedisCommand("INCR", "tasks")).integer ?? -1 } }
            return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
        }
        #expect(values == Set(1...2_000))
    }

    @Test func signsInAndSelectsTheDatabase() async throws {
        let server = try await RedisServerProcess.start(password: "s3cret pass")
        let url = "redis://:s3cret%20pass@127.0.0.1:\(server.port)"
        let db0 = try await connectedClient(server, url)
        let db3 = try await connectedClient(server, url + "/3")
        defer {
            Task {
                await db0.close(); await db3.close()
            }
        }
        try await db3.set("where", to: "three")
        #expect(try await db3.getString("where") == "three")
        #expect(try await db0.getString("where") == nil)

        let wrong = RedisClient(
            configuration: try testConfiguration("redis://:wrong@127.0.0.1:\(server.port)"), logger: testLogger)
        defer { Task { await wrong.close() } }
        let down = try await firstState(of: wrong) { if case .down = $0 { true } else { false } }
        let reason = try #require({ () -> String? in if case .down(let reason, _, _) = down { reason } else { nil } }())
        #expect(reason.hasPrefix("Redis sign-in failed:"))
        #expect(!reason.contains("wrong"))
        await #expect(throws: RedisError.self) { try await wrong.ping() }
    }

    @Test func recoversAfterTheServerIsKilledAndRestarted() async throws {
        let server = try await RedisServerProcess.start()
        let redis = try await connectedClient(server)
        defer { Task { await redis.close() } }
        let states = Collected<RedisConnectionState>()
        redis.onStateChange { states.append($0) }
        try await redis.set("before", to: "1")

        server.kill()
        try await waitUntil(timeout: 10, "the client to see Redis down") {
            if case .down = redis.state { true } else { false }
        }
        // While down, commands fail at once (not sent, not queued until Redis returns).
        do {
            try await redis.ping()
            Issue.record("PING should fail while Redis is down")
        } catch let error as RedisError {
            guard case .notConnected = error else {
                Issue.record("expected notConnected, got \(error)")
                return
            }
        }

        try await server.restart()
        try await redis.waitUntilUp(timeout: .seconds(10))
        #expect(try await redis.ping() == "PONG")
        #expect(try await redis.getString("before") == nil, "a restarted server without persistence is empty")
        let seen = states.all
        let downIndex = try #require(seen.firstIndex { if case .down = $0 { true } else { false } })
        #expect(seen[downIndex...].contains(.up))
    }

    @Test func aCommandInFlightWhenTheServerDiesFails() async throws {
        let server = try await RedisServerProcess.start()
        let redis = RedisClient(
            configuration: try testConfiguration(server.url, commandTimeout: .seconds(30)), logger: testLogger)
        let observer = try await connectedClient(server)
        defer {
            Task {
                await redis.close(); await observer.close()
            }
        }
        try await redis.waitUntilUp(timeout: .seconds(10))
        async let blocked = redis.send(RedisCommand("BLPOP", "never", 0))
        try await waitUntil(timeout: 10, "BLPOP to be waiting in Redis") {
            (try? await observer.send(RedisCommand("CLIENT", "LIST")).string?.contains("cmd=blpop")) == true
        }
        server.kill()
        do {
            _ = try await blocked
            Issue.record("BLPOP should have failed")
        } catch let error as RedisError {
            guard case .connectionLost = error else {
                Issue.record("expected connectionLost, got \(error)")
                return
            }
        }
    }

    @Test func aReplyThatNeverComesTimesOutAndTheConnectionIsRenewed() async throws {
        let server = try await RedisServerProcess.start()
        let redis = RedisClient(
            configuration: try testConfiguration(server.url, commandTimeout: .seconds(1), healthCheck: nil),
            logger: testLogger)
        defer { Task { await redis.close() } }
        try await redis.waitUntilUp(timeout: .seconds(10))
        let states = Collected<RedisConnectionState>()
        redis.onStateChange { states.append($0) }
        do {
            try await redis.send(RedisCommand("BLPOP", "never", 0))
            Issue.record("BLPOP should have timed out")
        } catch let error as RedisError {
            #expect(error == .timeout(command: "BLPOP", seconds: 1))
        }
        try await waitUntil(timeout: 10, "a new connection") { states.all.contains(.up) }
        // The new connection answers; a loaded machine may make one PING outlast the 1 s timeout, so it may ask again.
        try await waitUntil(timeout: 10, "PONG on the new connection") { (try? await redis.ping()) == "PONG" }
    }

    @Test func closingEndsTheStateStreamAndRefusesCommands() async throws {
        let server = try await RedisServerProcess.start()
        let redis = try await connectedClient(server)
        let changes = redis.stateChanges()
        await redis.close()
        var seen: [RedisConnectionState] = []
        for await state in changes { seen.append(state) }
        #expect(seen == [.up, .closed])
        await #expect(throws: RedisError.closed) { try await redis.ping() }
    }
}

/// The first state of `client` (current or later) that `matches`, within 10 s.
func firstState(of client: RedisClient, _ matches: @escaping @Sendable (RedisConnectionState) -> Bool) async throws
    -> RedisConnectionState
{
    let box = Collected<RedisConnectionState>()
    try await waitUntil(timeout: 10, "a matching Redis state") {
        let state = client.state
        if matches(state) { box.append(state) }
        return box.count > 0
    }
    return box.all[0]
}
