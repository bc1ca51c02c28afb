import NIOCore
import Synchronization

/// The one ordered queue from every WebSocket's event loop to the hub.
///
/// A connection's events are yielded from its event loop in order and the hub reads them in that order, so no
/// task or stream exists per connection: one task (``PusherHub/run()``) drains the queue for the whole server.
///
/// The queue is bounded like every feed: clients' messages waiting for the hub are at most ``capacity``; past that, a
/// read burst's messages are dropped and counted in ``droppedMessages`` (the hub is too far behind to keep up
/// anyway). Openings, closes and over-capacity notices are never dropped: there is at most one of each per
/// connection, and the hub's record of its connections depends on them.
final class HubInbox: Sendable {
    /// Messages queued before further ones are dropped, by default.
    static let defaultCapacity = 65_536

    /// The events in the order they were yielded.
    let events: Events
    /// The most client messages waiting for the hub at once.
    let capacity: Int
    private let continuation: AsyncStream<SocketEvent>.Continuation
    private let counts: Counts
    private let lastID = Mutex(0)
    /// The HTTP API's publishes not yet handed to the hub (``publish(_:on:)``).
    private let publishes = Mutex(PendingPublishes())

    private struct PendingPublishes {
        var requests: [PublishRequest] = []
        /// When the hub was last handed publishes (`nil`: never).
        var lastFlush: NIODeadline?
    }

    /// The most often the HTTP API's publishes wake the hub while they keep coming: once a millisecond.
    static let publishInterval = TimeAmount.milliseconds(1)

    init(capacity: Int = HubInbox.defaultCapacity) {
        let (stream, continuation) = AsyncStream.makeStream(of: SocketEvent.self)
        self.capacity = max(1, capacity)
        self.continuation = continuation
        counts = Counts()
        events = Events(stream: stream, counts: counts)
    }

    /// A connection id no other connection has had.
    func nextConnectionID() -> ConnectionID {
        ConnectionID(
            rawValue: lastID.withLock {
                $0 += 1; return $0
            })
    }

    /// Queues an event; a burst of messages that would take the queue past ``capacity`` is dropped and counted.
    ///
    /// Publishes still waiting for their hand-over go first: each was answered 200 when it was queued, so whatever a
    /// client does after that answer (subscribing to a cache channel, say) must reach the hub after it, not up to a
    /// ``publishInterval`` before.
    func yield(_ event: SocketEvent) {
        if case .received(_, let messages) = event {
            let admitted = counts.state.withLock { state -> Bool in
                guard state.queued + messages.count <= capacity else {
                    state.dropped += messages.count
                    return false
                }
                state.queued += messages.count
                return true
            }
            guard admitted else { return }
        }
        handOverPublishes(at: nil)
        continuation.yield(event)
    }

    /// Returns once the hub has handled every event queued before this call, the publishes still waiting for their
    /// hand-over included (``yield(_:)`` hands them over first).
    ///
    /// The HTTP API's routes that go to the hub directly wait for it first: a request sent after a publish was answered
    /// 200 then finds that publish done. Closing a user's connections right after publishing to them otherwise
    /// overtook the last publishes (still waiting out their ``publishInterval``), and the user never got them.
    func drained() async {
        await withCheckedContinuation { continuation in
            yield(.barrier(HubBarrier(continuation)))
        }
    }

    /// Queues the HTTP API's publishes, coalesced, in their order: a publish after a quiet millisecond reaches the
    /// hub at the end of the event-loop turn that read it (one hub wake for every request the read brought); while
    /// publishes keep coming, they are handed over at most once a ``publishInterval``. A busy API (even one client on
    /// one connection, request after request) then wakes the hub's thread a thousand times a second, not once a
    /// request: each wake is a cross-thread hand-off (a futex wake, the hub's thread sleeping again) that costs about
    /// as much as the rest of the request, more on some virtual machines (Benchmarks/README.md, issue 30).
    func publish(_ batch: [PublishRequest], on loop: any EventLoop) {
        let (first, flushAt) = publishes.withLock { pending -> (Bool, NIODeadline?) in
            defer { pending.requests.append(contentsOf: batch) }
            // When not first, a hand-over is already on its way.
            return (pending.requests.isEmpty, pending.lastFlush.map { $0 + Self.publishInterval })
        }
        guard first else { return }
        if let flushAt, flushAt > loop.now {
            loop.scheduleTask(deadline: flushAt) { self.handOverPublishes(at: loop.now) }
        } else {
            // Tasks run after the turn's reads; from the loop itself, `execute` wakes nothing.
            loop.execute { self.handOverPublishes(at: loop.now) }
        }
    }

    /// Hands the waiting publishes to the hub; `now` starts the next interval (a hand-over forced by another event
    /// leaves the interval as it was).
    ///
    /// The batch is yielded under the lock: a hand-over from another thread cannot slip a later publish in front.
    private func handOverPublishes(at now: NIODeadline?) {
        publishes.withLock { pending in
            if let now { pending.lastFlush = now }
            guard !pending.requests.isEmpty else { return }
            continuation.yield(.published(pending.requests))
            pending.requests.removeAll(keepingCapacity: true)
        }
    }

    /// Clients' messages dropped because the queue was full.
    var droppedMessages: Int { counts.state.withLock { $0.dropped } }

    /// Clients' messages waiting for the hub now.
    var queuedMessages: Int { counts.state.withLock { $0.queued } }

    /// Ends the queue (the server stopped).
    func finish() {
        continuation.finish()
    }

    /// What is queued and what was dropped, shared by the producer side and ``Events``.
    final class Counts: Sendable {
        struct State {
            var queued = 0
            var dropped = 0
        }

        let state = Mutex(State())
    }

    /// The hub's side of the queue: taking a burst of messages out makes room for as many.
    struct Events: AsyncSequence, Sendable {
        typealias Element = SocketEvent
        typealias Failure = Never
        let stream: AsyncStream<SocketEvent>
        let counts: Counts

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<SocketEvent>.AsyncIterator
            let counts: Counts

            mutating func next() async -> SocketEvent? {
                let event = await base.next()
                if case .received(_, let messages)? = event {
                    counts.state.withLock { $0.queued -= messages.count }
                }
                return event
            }

            mutating func next(isolation actor: isolated (any Actor)?) async -> SocketEvent? {
                let event = await base.next(isolation: actor)
                if case .received(_, let messages)? = event {
                    counts.state.withLock { $0.queued -= messages.count }
                }
                return event
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), counts: counts)
        }
    }
}
