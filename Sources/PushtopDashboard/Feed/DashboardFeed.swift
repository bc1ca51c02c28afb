import PusherProtocol
import Synchronization

/// Where one app's client hands its events and wire frames to the dashboard: call ``post(_:)`` and
/// ``post(frames:)`` straight from the client's batch callbacks, one read burst a call. Each burst keeps the time it
/// arrived; the dashboard takes everything waiting at its next frame, burst by burst.
///
/// Bounded: beyond ``capacity`` events (or frames) waiting for the dashboard, new ones are dropped and counted; the
/// dashboard shows the count (events in the status line, frames in the wire inspector).
public final class DashboardFeed: Sendable {
    /// Events, or frames, that wait for the next frame before new ones are dropped.
    public let capacity: Int
    private let pending = Mutex(Pending())

    /// - Parameter capacity: events (and, apart, frames) held between two frames before new ones are dropped.
    public init(capacity: Int = 200_000) {
        self.capacity = capacity
    }

    /// A read burst of client events, arrived now.
    public func post(_ events: [ClientEvent]) {
        post(events, time: DashboardClock.now())
    }

    /// A batch from the client's frame tap (the wire inspector, and each event's exact frame).
    public func post(frames: [WireFrame]) {
        pending.withLock { p in
            let taken = min(max(0, capacity - p.frames.count), frames.count)
            p.frames.append(contentsOf: frames.prefix(taken))
            p.framesDroppedSoFar += frames.count - taken
            p.framesPosted = true
        }
    }

    /// One read burst and the time it arrived.
    struct Burst {
        var time: Double
        var events: [ClientEvent]
    }

    /// What waits for the loop.
    struct Pending {
        var bursts: [Burst] = []
        var eventCount = 0
        /// Events dropped since the last take.
        var dropped = 0
        var frames: [WireFrame] = []
        /// Frames dropped since the feed started (kept across takes: the wire inspector shows the total).
        var framesDroppedSoFar = 0
        /// Whether frames were posted (or dropped) since the last take.
        var framesPosted = false
    }

    func post(_ events: [ClientEvent], time: Double) {
        guard !events.isEmpty else { return }
        pending.withLock { p in
            let taken = min(max(0, capacity - p.eventCount), events.count)
            if taken > 0 {
                p.bursts.append(Burst(time: time, events: taken == events.count ? events : Array(events.prefix(taken))))
            }
            p.eventCount += taken
            p.dropped += events.count - taken
        }
    }

    /// Takes everything waiting.
    func take() -> Pending {
        pending.withLock { p in
            let taken = p
            p = Pending()
            p.framesDroppedSoFar = taken.framesDroppedSoFar
            return taken
        }
    }
}
