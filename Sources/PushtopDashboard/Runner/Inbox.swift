import PusherProtocol
import Synchronization

/// What the terminal, the signals, the clock and the dashboard's own requests leave for the loop, and one
/// coalescing wake-up: however often they post, the loop wakes once, drains everything, and reduces it in one go.
///
/// The clients' events and frames wait in their apps' ``DashboardFeed``s and do not wake the loop: the frame clock
/// does, at most `framesPerSecond` times a second, so a firehose costs the screen one wake-up per frame drawn, not
/// one per read. Keys, signals and the answers of the dashboard's own requests wake it at once.
final class Inbox: Sendable {
    struct Pending {
        var inputReady = false
        var resized = false
        var tick = false
        var signal: Int32?
        /// Answers of asynchronous effects (HTTP API), reduced as they are.
        var uiEvents: [UIEvent] = []
    }

    private let pending = Mutex(Pending())
    let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Leaves something for the loop and wakes it.
    func update(_ body: (inout Pending) -> Void) {
        pending.withLock { body(&$0) }
        continuation.yield()
    }

    /// Wakes the loop (it takes the feeds' events at every wake-up, not only at a frame).
    func wake() {
        continuation.yield()
    }

    /// Takes everything pending.
    func take() -> Pending {
        pending.withLock { p in
            let taken = p
            p = Pending()
            return taken
        }
    }
}
