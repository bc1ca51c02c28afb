/// The exit status of a command that runs until something ends it: SIGINT or SIGTERM ask for 0 (watched from the
/// start, so none is lost), the command's own tasks ask through ``continuation``; the first status asked for wins.
struct ExitRequests: Sendable {
    /// Where the command's tasks ask for a status (e.g. 1: every source gave up).
    let continuation: AsyncStream<Int32>.Continuation
    private let requests: AsyncStream<Int32>
    private let signalTask: Task<Void, Never>

    init() {
        let (requests, continuation) = AsyncStream.makeStream(of: Int32.self)
        let signals = SignalWatcher.terminationSignals()
        self.requests = requests
        self.continuation = continuation
        signalTask = Task {
            for await _ in signals {
                continuation.yield(0)
                return
            }
        }
    }

    /// Waits for the first status asked for, then stops watching the signals.
    func status() async -> Int32 {
        defer { signalTask.cancel() }
        for await status in requests { return status }
        return 0
    }
}
