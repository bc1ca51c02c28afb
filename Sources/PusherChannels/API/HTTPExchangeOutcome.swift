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
        deadline = eventLoop.scheduleTask(in: .nanoseconds(Int64(max(timeout, 0) * 1e9))) { [self] in
            fail(.timeout(seconds: timeout))
        }
    }

    /// The connection is up; closes it at once if the exchange already ended.
    func attach(_ channel: any Channel) {
        self.channel = channel
        if done { channel.close(promise: nil) }
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
