import PusherProtocol
import Synchronization

/// One consumer's bounded buffer of events, taken out in batches.
///
/// The producer appends without waiting; when the buffer is full the oldest events are dropped and counted.
/// The consumer takes everything buffered at once, so a busy consumer costs one wake-up per batch instead of
/// one per event.
final class EventBatchBuffer: Sendable {
    private struct State {
        var buffer: [ClientEvent] = []
        var waiter: CheckedContinuation<[ClientEvent]?, Never>?
        var finished = false
        var dropped = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var droppedCount: Int { state.withLock { $0.dropped } }

    func push(_ events: [ClientEvent]) {
        guard !events.isEmpty else { return }
        let resume: (CheckedContinuation<[ClientEvent]?, Never>, [ClientEvent])? = state.withLock { s in
            guard !s.finished else { return nil }
            if let waiter = s.waiter {
                s.waiter = nil
                var batch = events
                if batch.count > capacity {
                    s.dropped += batch.count - capacity
                    batch.removeFirst(batch.count - capacity)
                }
                return (waiter, batch)
            }
            s.buffer.append(contentsOf: events)
            if s.buffer.count > capacity {
                let excess = s.buffer.count - capacity
                s.dropped += excess
                s.buffer.removeFirst(excess)
            }
            return nil
        }
        if let (waiter, batch) = resume { waiter.resume(returning: batch) }
    }

    func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<[ClientEvent]?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.buffer.isEmpty ? s.waiter : nil
        }
        waiter?.resume(returning: nil)
    }

    /// The next batch (everything buffered), waiting for one if needed; `nil` when finished and drained.
    func next() async -> [ClientEvent]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[ClientEvent]?, Never>) in
                let immediate: [ClientEvent]?? = state.withLock { s in
                    if !s.buffer.isEmpty {
                        let batch = s.buffer
                        s.buffer = []
                        return .some(batch)
                    }
                    if s.finished || Task.isCancelled { return .some(nil) }
                    s.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            finish()
        }
    }
}

/// An async sequence of event batches: each element is every event buffered since the previous one.
///
/// Obtain one from ``PusherClient/eventBatches(bufferSize:)``. Each call makes a new, independent consumer.
public struct ClientEventBatches: AsyncSequence, Sendable {
    public typealias Element = [ClientEvent]
    let buffer: EventBatchBuffer
    let onTermination: @Sendable () -> Void

    /// How many events this consumer lost because its buffer was full.
    public var droppedCount: Int { buffer.droppedCount }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: EventBatchBuffer
        let onTermination: @Sendable () -> Void

        public mutating func next() async -> [ClientEvent]? {
            let batch = await buffer.next()
            if batch == nil { onTermination() }
            return batch
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(buffer: buffer, onTermination: onTermination)
    }
}
