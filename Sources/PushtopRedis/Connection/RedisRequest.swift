import NIOCore

/// What a connection's owner writes into the channel: commands, each with the promise of its reply, written and
/// flushed together (one buffer, one syscall for a pipelined batch).
struct RedisRequest: Sendable {
    struct Entry: Sendable {
        var command: RedisCommand
        var promise: EventLoopPromise<RESPValue>
        /// How many replies complete it: 1, or one per channel for `SUBSCRIBE a b c` on a subscriber connection.
        var replies: Int = 1
    }

    var entries: [Entry]

    init(_ entries: [Entry]) {
        self.entries = entries
    }

    init(_ command: RedisCommand, promise: EventLoopPromise<RESPValue>, replies: Int = 1) {
        self.entries = [Entry(command: command, promise: promise, replies: replies)]
    }

    /// Fails every entry's promise (the request never reached the handler).
    func fail(_ error: RedisError) {
        for entry in entries { entry.promise.fail(error) }
    }
}
