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
/// The clients' events and frames do not wake the loop: the frame clock does, at most `framesPerSecond` times a
/// second, so a firehose costs the screen one wake-up per frame drawn, not one per read. Keys, signals and the
/// answers of the dashboard's own requests wake it at once.
final class Inbox: Sendable {
    struct Pending {
        /// Client events per app (index = the app's).
        var events: [[ClientEvent]] = []
        /// When each of `events` arrived, per app.
        var eventTimes: [[Double]] = []
        var eventCount = 0
        var dropped = 0
        /// Frames per app.
        var frames: [[WireFrame]] = []
        var frameCount = 0
        /// The frame tap's own drop count (in all) per app, when frames arrived.
        var framesDroppedUpstream: [Int: Int] = [:]
        /// Frames this inbox dropped since it started, per app (kept across ``Inbox/take()``).
        var framesOverflowSoFar: [Int: Int] = [:]
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

    /// Client events of an app, arrived at `time`; beyond the capacity (all apps together) they are dropped and
    /// counted.
    /// - Parameter wake: wake the loop now (the clients' own streams wait for the next frame tick).
    func post(_ events: [ClientEvent], app: Int = 0, time: Double, wake: Bool = true) {
        pending.withLock { p in
            while p.events.count <= app {
                p.events.append([])
                p.eventTimes.append([])
            }
            let room = max(0, capacity - p.eventCount)
            let taken = min(room, events.count)
            p.events[app].append(contentsOf: events.prefix(taken))
            p.eventTimes[app].append(contentsOf: repeatElement(time, count: taken))
            p.eventCount += taken
            p.dropped += events.count - taken
        }
        if wake { continuation.yield() }
    }

    /// Frames from an app's tap; beyond the capacity they are dropped and counted like the tap's own drops. They
    /// wait for the next frame tick.
    func post(frames: [WireFrame], droppedUpstream: Int, app: Int = 0) {
        pending.withLock { p in
            while p.frames.count <= app { p.frames.append([]) }
            let room = max(0, capacity - p.frameCount)
            let taken = min(room, frames.count)
            p.frames[app].append(contentsOf: frames.prefix(taken))
            p.frameCount += taken
            p.framesOverflowSoFar[app, default: 0] += frames.count - taken
            p.framesDroppedUpstream[app] = droppedUpstream + p.framesOverflowSoFar[app, default: 0]
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
