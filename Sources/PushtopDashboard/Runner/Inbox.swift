import PusherProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock around a value, for the few places where threads and dispatch sources hand data to the loop.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }
}

/// What producers (the client feed, stdin, signals, the clock) leave for the loop, and one coalescing
/// wake-up: however fast events arrive, the loop wakes once, drains everything, and reduces it in one go.
///
/// The client's events and frames do not wake the loop: the frame clock does, at most `framesPerSecond` times a
/// second, so a firehose costs the screen one wake-up per frame drawn, not one per read. Keys, signals and the
/// answers of the dashboard's own requests wake it at once.
final class Inbox: Sendable {
    struct Pending {
        var events: [ClientEvent] = []
        /// When each of `events` arrived (for recordings).
        var eventTimes: [Double] = []
        var dropped = 0
        var frames: [WireFrame] = []
        /// The frame tap's own drop count (in all), when frames arrived.
        var framesDroppedUpstream: Int?
        /// Frames this inbox dropped since it started (kept across ``Inbox/take()``).
        var framesOverflowSoFar = 0
        var inputReady = false
        var resized = false
        var tick = false
        var signal: Int32?
        var feedEnded = false
        var notices: [(String, Bool)] = []
        /// Answers of asynchronous effects (HTTP API), reduced as they are.
        var uiEvents: [UIEvent] = []
    }

    private let pending = Locked(Pending())
    private let capacity: Int
    let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init(capacity: Int) {
        self.capacity = capacity
        (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Leaves `events`, arrived at `time`; beyond the capacity they are dropped and counted.
    /// - Parameter wake: wake the loop now (the client's own stream waits for the next frame tick).
    func post(_ events: [ClientEvent], time: Double, wake: Bool = true) {
        pending.withLock { p in
            let room = max(0, capacity - p.events.count)
            let kept = min(room, events.count)
            if kept == events.count {
                p.events.append(contentsOf: events)
            } else {
                p.events.append(contentsOf: events.prefix(kept))
                p.dropped += events.count - kept
            }
            p.eventTimes.append(contentsOf: repeatElement(time, count: kept))
        }
        if wake { continuation.yield() }
    }

    /// Frames from the tap; beyond the capacity they are dropped and counted like the tap's own drops. They wait
    /// for the next frame tick.
    func post(frames: [WireFrame], droppedUpstream: Int) {
        pending.withLock { p in
            let room = max(0, capacity - p.frames.count)
            p.frames.append(contentsOf: frames.prefix(room))
            p.framesOverflowSoFar += max(0, frames.count - room)
            p.framesDroppedUpstream = droppedUpstream + p.framesOverflowSoFar
        }
    }

    func update(_ body: (inout Pending) -> Void) {
        pending.withLock(body)
        continuation.yield()
    }

    /// Takes everything pending.
    func take() -> Pending {
        pending.withLock { p in
            let taken = p
            p = Pending()
            p.framesOverflowSoFar = taken.framesOverflowSoFar
            return taken
        }
    }

    func finish() {
        continuation.finish()
    }
}
