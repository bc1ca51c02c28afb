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
final class Inbox: Sendable {
    struct Pending {
        /// Client events per app (index = the app's).
        var events: [[ClientEvent]] = []
        var eventCount = 0
        var dropped = 0
        /// Frames per app.
        var frames: [[WireFrame]] = []
        var frameCount = 0
        /// The frame tap's own drop count (in all) per app, when frames arrived.
        var framesDroppedUpstream: [Int: Int] = [:]
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

    /// Client events of an app; beyond the capacity (all apps together) they are dropped and counted.
    func post(_ events: [ClientEvent], app: Int = 0) {
        pending.withLock { p in
            while p.events.count <= app { p.events.append([]) }
            let room = max(0, capacity - p.eventCount)
            let taken = min(room, events.count)
            p.events[app].append(contentsOf: events.prefix(taken))
            p.eventCount += taken
            p.dropped += events.count - taken
        }
        continuation.yield()
    }

    /// Frames from an app's tap; beyond the capacity they are dropped and counted like the tap's own drops.
    func post(frames: [WireFrame], droppedUpstream: Int, app: Int = 0) {
        pending.withLock { p in
            while p.frames.count <= app { p.frames.append([]) }
            let room = max(0, capacity - p.frameCount)
            let taken = min(room, frames.count)
            p.frames[app].append(contentsOf: frames.prefix(taken))
            p.frameCount += taken
            p.framesDroppedUpstream[app] = droppedUpstream + frames.count - taken
        }
        continuation.yield()
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
            return taken
        }
    }

    func finish() {
        continuation.finish()
    }
}
