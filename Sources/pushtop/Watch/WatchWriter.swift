import PusherChannels

/// Prints `watch`'s lines: each batch formatted into one buffer and written with one `write`.
///
/// Called synchronously by the client on its event loop (``PusherClient/onEventBatch(_:)``), so a read burst goes
/// from the socket through the client to stdout on one thread, with one wake-up and no task in between.
final class WatchWriter: @unchecked Sendable {
    // Touched only on the client's event loop (inside its callbacks).
    private let client: PusherClient
    private let exit: AsyncStream<Int32>.Continuation
    private var lastClosure: ConnectionClosure?
    private var out = ""

    init(client: PusherClient, exit: AsyncStream<Int32>.Continuation) {
        self.client = client
        self.exit = exit
    }

    /// Starts printing events (and, with `frames`, `frame` lines) from now until the client shuts down.
    func start(frames: Bool) {
        client.onEventBatch { [self] batch in printEvents(batch) }
        if frames {
            client.onFrames { [self] batch in printFrames(batch) }
        }
    }

    private func printEvents(_ batch: [ClientEvent]) {
        for event in batch {
            if let line = WatchLine.encode(event) {
                out += line
                out += "\n"
            }
            switch event {
            case .closed(let closure):
                lastClosure = closure
            case .state(let change) where change.current == .failed:
                flush()
                let reason = client.assumeIsolated { $0.failureReason } ?? lastClosure?.reason ?? "connection failed"
                let code = lastClosure?.code.map { "close code \($0) (\(CloseCode.meaning(of: $0))): " } ?? ""
                StandardStreams.writeErr("pushtop watch: connection failed: \(code)\(reason)\n")
                exit.yield(1)
            default:
                break
            }
        }
        flush()
    }

    private func printFrames(_ batch: [WireFrame]) {
        for frame in batch {
            out += WatchLine.frame(frame)
            out += "\n"
        }
        flush()
    }

    private func flush() {
        guard !out.isEmpty else { return }
        StandardStreams.writeOut(out)
        out.removeAll(keepingCapacity: true)
    }
}
