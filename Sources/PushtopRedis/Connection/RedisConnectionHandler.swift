import NIOCore

/// Matches replies to commands on one Redis connection: many commands in flight, replies in order.
///
/// Encodes each ``RedisRequest`` into one buffer, queues its promises, and completes the oldest with each value
/// that arrives. On a subscriber connection (`onPush` set) message pushes go to `onPush` on the event loop, with
/// no hop. A command unanswered for the command timeout closes the connection (a silent partition); a `PING`
/// is sent when the connection has been idle for the health-check interval, so that one is noticed while idle
/// too. When the connection ends, every waiting command fails and `closed` gets the reason.
final class RedisConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = RedisRequest
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        var command: RedisCommand
        var promise: EventLoopPromise<RESPValue>
        var replies: Int
        var sentAt: NIODeadline
    }

    private var queue = CircularBuffer<Pending>(initialCapacity: 64)
    private var active = true
    private var failure: RedisError?
    private var timeoutCheck: Scheduled<Void>?
    private var healthCheck: RepeatedTask?
    private var lastActivity = NIODeadline.now()

    private let commandTimeout: TimeAmount
    private let healthCheckInterval: TimeAmount?
    private let onPush: (@Sendable (RedisPubSubMessage) -> Void)?
    private let closed: EventLoopPromise<String>

    init(
        commandTimeout: Duration, healthCheckInterval: Duration?, closed: EventLoopPromise<String>,
        onPush: (@Sendable (RedisPubSubMessage) -> Void)?
    ) {
        self.commandTimeout = TimeAmount(commandTimeout)
        self.healthCheckInterval = healthCheckInterval.map { TimeAmount($0) }
        self.closed = closed
        self.onPush = onPush
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let interval = healthCheckInterval, interval > .zero else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        healthCheck = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let (handler, context) = loopBound.value
            handler.pingIfIdle(context: context, interval: interval)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        shutDown(reason: failure?.description ?? "handler removed")
    }

    // MARK: - Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard active else {
            request.fail(.notConnected(failure?.description ?? "connection closed"))
            promise?.succeed()
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: 64)
        let now = NIODeadline.now()
        for entry in request.entries {
            RESPEncoder.encode(entry.command, into: &buffer)
            queue.append(Pending(command: entry.command, promise: entry.promise, replies: entry.replies, sentAt: now))
        }
        lastActivity = now
        armTimeoutCheck(context: context)
        context.write(wrapOutboundOut(buffer), promise: nil)
        promise?.succeed()
    }

    // MARK: - Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = unwrapInboundIn(data)
        lastActivity = .now()
        if let onPush, let message = RedisPubSubMessage(push: value) {
            onPush(message)
            return
        }
        guard var head = queue.first else {
            fail(context: context, .unexpectedReply(command: "(none sent)", reply: value.description))
            return
        }
        if case .error = value {
            queue.removeFirst()
            head.promise.succeed(value)
            return
        }
        head.replies -= 1
        if head.replies > 0 {
            queue[queue.startIndex] = head
        } else {
            queue.removeFirst()
            head.promise.succeed(value)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        shutDown(reason: failure?.description ?? "connection closed by Redis")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let decoding = error as? RESPDecodingError {
            fail(context: context, .protocolViolation(decoding))
        } else if let redis = error as? RedisError {
            fail(context: context, redis)
        } else {
            fail(context: context, .connectionLost("\(error)"))
        }
    }

    // MARK: - Failure and timeouts

    /// Records why the connection is unusable and closes it; the waiting commands fail in ``shutDown(reason:)``.
    private func fail(context: ChannelHandlerContext, _ error: RedisError) {
        if failure == nil { failure = error }
        context.close(promise: nil)
    }

    private func shutDown(reason: String) {
        guard active else { return }
        active = false
        timeoutCheck?.cancel()
        timeoutCheck = nil
        healthCheck?.cancel()
        healthCheck = nil
        let error: RedisError
        switch failure {
        case .timeout(let command, let seconds)?: error = .timeout(command: command, seconds: seconds)
        case let failure?: error = .connectionLost(failure.description)
        case nil: error = .connectionLost(reason)
        }
        while let pending = queue.popFirst() {
            pending.promise.fail(error)
        }
        closed.succeed(reason)
    }

    private func armTimeoutCheck(context: ChannelHandlerContext) {
        guard timeoutCheck == nil, let oldest = queue.first else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timeoutCheck = context.eventLoop.scheduleTask(deadline: oldest.sentAt + commandTimeout) {
            let (handler, context) = loopBound.value
            handler.timeoutCheck = nil
            handler.checkTimeout(context: context)
        }
    }

    private func checkTimeout(context: ChannelHandlerContext) {
        guard active, let oldest = queue.first else { return }
        if oldest.sentAt + commandTimeout <= .now() {
            let seconds = Double(commandTimeout.nanoseconds) / 1e9
            fail(context: context, .timeout(command: oldest.command.name, seconds: seconds))
        } else {
            armTimeoutCheck(context: context)
        }
    }

    private func pingIfIdle(context: ChannelHandlerContext, interval: TimeAmount) {
        guard active, queue.isEmpty, lastActivity + interval <= .now() else { return }
        let promise = context.eventLoop.makePromise(of: RESPValue.self)
        promise.futureResult.whenComplete { _ in }
        write(context: context, data: NIOAny(RedisRequest(RedisCommand("PING"), promise: promise)), promise: nil)
        context.flush()
    }
}
