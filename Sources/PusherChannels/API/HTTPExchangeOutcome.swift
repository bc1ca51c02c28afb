import NIOCore

/// How one ``HTTPExchange`` ends, decided once: the answer, a failure or the deadline, whichever comes first.
/// Touched only on the exchange's event loop; whatever ends it closes the connection.
final class HTTPExchangeOutcome: @unchecked Sendable {
    let promise: EventLoopPromise<HTTPExchangeResponse>
    private let timeout: Double
    private var channel: (any Channel)?
    private var deadline: Scheduled<Void>?
    private var done = false

    init(promise: EventLoopPromise<HTTPExchangeResponse>, timeout: Double) {
        self.promise = promise
        self.timeout = timeout
    }

    /// Arms the deadline.
    func start(on eventLoop: any EventLoop) {
        deadline = eventLoop.scheduleTask(in: Self.duration(timeout)) { [self] in
            fail(.timeout(seconds: timeout))
        }
    }

    /// The connection is up; closes it at once if the exchange already ended.
    func attach(_ channel: any Channel) {
        self.channel = channel
        if done { channel.close(promise: nil) }
    }

    /// `seconds` as a NIO amount of time: negative and NaN as none, at most a year (an infinite timeout would not
    /// fit in nanoseconds).
    static func duration(_ seconds: Double) -> TimeAmount {
        guard seconds > 0 else { return .nanoseconds(0) }
        return .nanoseconds(Int64(min(seconds, 365 * 86_400) * 1e9))
    }

    func succeed(_ response: HTTPExchangeResponse) {
        finish { promise.succeed(response) }
    }

    func fail(_ error: HTTPExchangeError) {
        finish { promise.fail(error) }
    }

    private func finish(_ complete: () -> Void) {
        guard !done else { return }
        done = true
        deadline?.cancel()
        complete()
        channel?.close(promise: nil)
    }
}
