import PusherChannels

/// Prints `watch`'s lines: each batch formatted into one buffer and written with one `write`.
///
/// Runs on the client's event loop (its executor is the loop's), so a read burst goes from the socket through the
/// client to stdout on one thread, with one wake-up.
actor WatchWriter {
    nonisolated let unownedExecutor: UnownedSerialExecutor
    private let client: PusherClient
    private let exit: AsyncStream<Int32>.Continuation
    private var lastClosure: ConnectionClosure?

    init(client: PusherClient, exit: AsyncStream<Int32>.Continuation) {
        self.unownedExecutor = client.eventLoop.executor.asUnownedSerialExecutor()
        self.client = client
        self.exit = exit
    }

    /// Prints event batches until the client shuts down.
    func printEvents(_ batches: ClientEventBatches) async {
        var reportedDrops = 0
        var iterator = batches.makeAsyncIterator()
        var out = ""
        while let batch = await iterator.next(isolation: self) {
            let dropped = batches.droppedCount
            if dropped > reportedDrops {
                // Never lose events silently: say how many a slow reader of stdout cost.
                out += WatchLine.error(code: nil, message: "dropped \(dropped - reportedDrops) events: stdout is read too slowly (\(dropped) in all)")
                out += "\n"
                reportedDrops = dropped
            }
            for event in batch {
                if let line = WatchLine.encode(event) {
                    out += line
                    out += "\n"
                }
                switch event {
                case .closed(let closure):
                    lastClosure = closure
                case .state(let change) where change.current == .failed:
                    StandardStreams.writeOut(out)
                    out.removeAll(keepingCapacity: true)
                    let reason = await client.failureReason ?? lastClosure?.reason ?? "connection failed"
                    let code = lastClosure?.code.map { "close code \($0) (\(CloseCode.meaning(of: $0))): " } ?? ""
                    StandardStreams.writeErr("pushtop watch: connection failed: \(code)\(reason)\n")
                    exit.yield(1)
                default:
                    break
                }
            }
            if !out.isEmpty {
                StandardStreams.writeOut(out)
                out.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Prints `frame` lines (`--frames`) until the client shuts down.
    func printFrames(_ batches: WireFrameBatches) async {
        var reportedDrops = 0
        var iterator = batches.makeAsyncIterator()
        var out = ""
        while let batch = await iterator.next(isolation: self) {
            let dropped = batches.droppedCount
            if dropped > reportedDrops {
                out += WatchLine.error(code: nil, message: "dropped \(dropped - reportedDrops) frames: stdout is read too slowly (\(dropped) in all)")
                out += "\n"
                reportedDrops = dropped
            }
            for frame in batch {
                out += WatchLine.frame(frame)
                out += "\n"
            }
            StandardStreams.writeOut(out)
            out.removeAll(keepingCapacity: true)
        }
    }
}
