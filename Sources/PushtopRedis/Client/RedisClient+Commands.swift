import NIOCore

/// Typed helpers for the commands a Pusher cluster uses. Each throws ``RedisError`` like
/// `RedisClient.send(_:)`, and ``RedisError/unexpectedReply(command:reply:)`` when the reply
/// has an unexpected shape.
extension RedisClient {
    /// `PING`: the server's answer (`"PONG"`).
    @discardableResult
    public func ping() async throws -> String {
        try await send(RedisCommand("PING")).string ?? ""
    }

    /// `PUBLISH channel message`: how many subscribers (on any node) received it.
    @discardableResult
    public func publish(_ message: RedisCommand.Argument, to channel: String) async throws -> Int {
        try integer(await send(RedisCommand("PUBLISH", .string(channel), message)), "PUBLISH")
    }

    /// `GET key`: its bytes, or `nil` when it does not exist.
    public func get(_ key: String) async throws -> ByteBuffer? {
        let reply = try await send(RedisCommand("GET", .string(key)))
        if reply.isNull { return nil }
        guard let bytes = reply.bytes else { throw unexpected("GET", reply) }
        return bytes
    }

    /// `GET key` as UTF-8 text, or `nil` when it does not exist.
    public func getString(_ key: String) async throws -> String? {
        try await get(key).map { String(buffer: $0) }
    }

    /// `SET key value [PX ms] [NX]`: whether it was set (`false` only with `onlyIfAbsent` when the key exists).
    @discardableResult
    public func set(
        _ key: String, to value: RedisCommand.Argument, expiration: Duration? = nil,
        onlyIfAbsent: Bool = false
    ) async throws -> Bool {
        var arguments: [RedisCommand.Argument] = [.string(key), value]
        if let expiration { arguments += ["PX", .integer(max(1, expiration.milliseconds))] }
        if onlyIfAbsent { arguments.append("NX") }
        let reply = try await send(RedisCommand("SET", arguments: arguments))
        return !reply.isNull
    }

    /// `DEL key...`: how many existed.
    @discardableResult
    public func delete(_ keys: [String]) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        return try integer(await send(RedisCommand("DEL", arguments: keys.map { .string($0) })), "DEL")
    }

    /// `PEXPIRE key ms`: whether the key exists (and now expires after `duration`).
    @discardableResult
    public func expire(_ key: String, after duration: Duration) async throws -> Bool {
        try integer(
            await send(RedisCommand("PEXPIRE", .string(key), .integer(max(1, duration.milliseconds)))),
            "PEXPIRE") == 1
    }

    /// `PTTL key`: the time left, or `nil` when the key does not exist or does not expire.
    public func timeToLive(_ key: String) async throws -> Duration? {
        let milliseconds = try integer(await send(RedisCommand("PTTL", .string(key))), "PTTL")
        return milliseconds < 0 ? nil : .milliseconds(milliseconds)
    }

    /// `INCRBY key by`: the new value.
    @discardableResult
    public func increment(_ key: String, by amount: Int = 1) async throws -> Int {
        try integer(await send(RedisCommand("INCRBY", .string(key), .integer(amount))), "INCRBY")
    }

    /// `DECRBY key by`: the new value.
    @discardableResult
    public func decrement(_ key: String, by amount: Int = 1) async throws -> Int {
        try integer(await send(RedisCommand("DECRBY", .string(key), .integer(amount))), "DECRBY")
    }

    // MARK: - Hashes

    /// `HSET key field value...`: how many fields were new.
    @discardableResult
    public func hashSet(_ key: String, _ fields: [String: RedisCommand.Argument]) async throws -> Int {
        guard !fields.isEmpty else { return 0 }
        var arguments: [RedisCommand.Argument] = [.string(key)]
        for (field, value) in fields { arguments += [.string(field), value] }
        return try integer(await send(RedisCommand("HSET", arguments: arguments)), "HSET")
    }

    /// `HDEL key field...`: how many fields existed.
    @discardableResult
    public func hashDelete(_ key: String, fields: [String]) async throws -> Int {
        guard !fields.isEmpty else { return 0 }
        return try integer(
            await send(RedisCommand("HDEL", arguments: [.string(key)] + fields.map { .string($0) })),
            "HDEL")
    }

    /// `HGETALL key`: every field and its bytes (empty when the key does not exist).
    public func hashGetAll(_ key: String) async throws -> [String: ByteBuffer] {
        let reply = try await send(RedisCommand("HGETALL", .string(key)))
        guard let elements = reply.array, elements.count % 2 == 0 else { throw unexpected("HGETALL", reply) }
        var fields: [String: ByteBuffer] = [:]
        fields.reserveCapacity(elements.count / 2)
        var index = 0
        while index < elements.count {
            guard let field = elements[index].string, let value = elements[index + 1].bytes else {
                throw unexpected("HGETALL", reply)
            }
            fields[field] = value
            index += 2
        }
        return fields
    }

    // MARK: - Sets

    /// `SADD key member...`: how many were new.
    @discardableResult
    public func setAdd(_ key: String, members: [String]) async throws -> Int {
        guard !members.isEmpty else { return 0 }
        return try integer(
            await send(RedisCommand("SADD", arguments: [.string(key)] + members.map { .string($0) })),
            "SADD")
    }

    /// `SREM key member...`: how many were there.
    @discardableResult
    public func setRemove(_ key: String, members: [String]) async throws -> Int {
        guard !members.isEmpty else { return 0 }
        return try integer(
            await send(RedisCommand("SREM", arguments: [.string(key)] + members.map { .string($0) })),
            "SREM")
    }

    /// `SMEMBERS key`: the members (empty when the key does not exist).
    public func setMembers(_ key: String) async throws -> [String] {
        let reply = try await send(RedisCommand("SMEMBERS", .string(key)))
        guard let elements = reply.array else { throw unexpected("SMEMBERS", reply) }
        return try elements.map { element in
            guard let member = element.string else { throw unexpected("SMEMBERS", reply) }
            return member
        }
    }

    // MARK: - Scanning (never KEYS)

    /// One `SCAN cursor [MATCH pattern] [COUNT n]` step: the next cursor ("0" when done) and the keys found.
    public func scan(cursor: String = "0", matching pattern: String? = nil, count: Int? = nil) async throws
        -> (cursor: String, keys: [String])
    {
        var arguments: [RedisCommand.Argument] = [.string(cursor)]
        if let pattern { arguments += ["MATCH", .string(pattern)] }
        if let count { arguments += ["COUNT", .integer(count)] }
        let reply = try await send(RedisCommand("SCAN", arguments: arguments))
        guard let parts = reply.array, parts.count == 2, let next = parts[0].string, let found = parts[1].array else {
            throw unexpected("SCAN", reply)
        }
        return (next, found.compactMap(\.string))
    }

    /// Every key matching `pattern`, by `SCAN` until the cursor returns to 0 (a key may appear twice, as SCAN
    /// allows; duplicates are removed).
    public func scanKeys(matching pattern: String, count: Int = 500) async throws -> [String] {
        var cursor = "0"
        var keys: [String] = []
        var seen: Set<String> = []
        repeat {
            let (next, found) = try await scan(cursor: cursor, matching: pattern, count: count)
            for key in found where seen.insert(key).inserted { keys.append(key) }
            cursor = next
        } while cursor != "0"
        return keys
    }

    // MARK: - Atomic updates

    /// `EVAL script numkeys key... arg...`: the script's reply.
    @discardableResult
    public func eval(_ script: String, keys: [String] = [], arguments: [RedisCommand.Argument] = []) async throws
        -> RESPValue
    {
        try await send(
            RedisCommand(
                "EVAL",
                arguments: [.string(script), .integer(keys.count)]
                    + keys.map { .string($0) } + arguments))
    }

    /// `MULTI`, `commands`, `EXEC`, pipelined in one write: the replies of `commands`, run atomically.
    ///
    /// - Throws: ``RedisError/server(command:message:)`` when a command was refused when queued (the
    ///   transaction is then discarded: `EXECABORT`).
    @discardableResult
    public func transaction(_ commands: [RedisCommand]) async throws -> [RESPValue] {
        let replies = try await send([RedisCommand("MULTI")] + commands + [RedisCommand("EXEC")])
        for (reply, command) in zip(replies.dropLast(), [RedisCommand("MULTI")] + commands) {
            if let message = reply.errorMessage { throw RedisError.server(command: command.name, message: message) }
        }
        let exec = replies[replies.count - 1]
        if let message = exec.errorMessage { throw RedisError.server(command: "EXEC", message: message) }
        guard let results = exec.array, results.count == commands.count else { throw unexpected("EXEC", exec) }
        return results
    }

    // MARK: - Helpers

    private func integer(_ reply: RESPValue, _ command: String) throws -> Int {
        guard case .integer(let value) = reply else { throw unexpected(command, reply) }
        return Int(value)
    }

    private func unexpected(_ command: String, _ reply: RESPValue) -> RedisError {
        .unexpectedReply(command: command, reply: reply.description)
    }
}

extension Duration {
    /// Whole milliseconds, rounded up (never 0 for a positive duration).
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
