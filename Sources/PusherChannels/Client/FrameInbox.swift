import PusherProtocol
import Synchronization

/// What the transport handed over, already decoded off the actor.
enum InboundItem: Sendable {
    case opened
    case message(PusherMessage, size: Int)
    case malformed(PusherMessageError)
    case closed(code: Int?, reason: String)
}

/// Collects transport events from the socket's task and hands them to the client actor in batches.
///
/// Decoding happens on the socket's task; the actor is woken once per batch, not once per frame, which is
/// what lets one consumer take hundreds of thousands of events per second.
final class FrameInbox: Sendable {
    private struct State {
        var items: [(attempt: Int, item: InboundItem)] = []
        var drainScheduled = false
        var lastDrain = ContinuousClock.now - .seconds(1)
    }

    /// Drains closer together than this are a busy stream: the next one waits ``coalescingDelay`` so that
    /// one wake-up carries many frames. A quiet stream is drained at once (no added latency).
    static let busyGap: Duration = .microseconds(600)
    static let coalescingDelay: Duration = .milliseconds(2)

    private let state = Mutex(State())

    /// Appends an item; returns `true` when the caller must schedule a drain.
    func push(attempt: Int, _ item: InboundItem) -> Bool {
        state.withLock { s in
            s.items.append((attempt, item))
            if s.drainScheduled { return false }
            s.drainScheduled = true
            return true
        }
    }

    /// Takes everything queued; when nothing is left the next push schedules a new drain.
    func take() -> [(attempt: Int, item: InboundItem)] {
        state.withLock { s in
            let items = s.items
            s.items = []
            if items.isEmpty { s.drainScheduled = false } else { s.lastDrain = .now }
            return items
        }
    }

    /// Whether the stream is busy (the last drain was moments ago), so that the next drain should wait a little.
    var isBusy: Bool {
        state.withLock { ContinuousClock.now - $0.lastDrain < Self.busyGap }
    }
}
