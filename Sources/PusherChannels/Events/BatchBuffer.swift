import PusherProtocol
import Synchronization

/// One consumer's bounded buffer, taken out in batches.
///
/// The producer appends without waiting; when the buffer is full the oldest elements are dropped and counted.
/// The consumer takes everything buffered at once, so a busy consumer costs one wake-up per batch instead of
/// one per element.
final class BatchBuffer<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var waiter: CheckedContinuation<[Element]?, Never>?
        var finished = false
        var dropped = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Whether the consumer is waiting in ``next(isolation:)`` for the next push (tests wait for it before pushing).
    var hasWaitingConsumer: Bool { state.withLock { $0.waiter != nil } }

    func push(_ elements: [Element]) {
        guard !elements.isEmpty else { return }
        let resume: (CheckedContinuation<[Element]?, Never>, [Element])? = state.withLock { s in
            guard !s.finished else { return nil }
            if let waiter = s.waiter {
                s.waiter = nil
                var batch = elements
                if batch.count > capacity {
                    s.dropped += batch.count - capacity
                    batch.removeFirst(batch.count - capacity)
                }
                return (waiter, batch)
            }
            s.buffer.append(contentsOf: elements)
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
        let waiter = state.withLock { s -> CheckedContinuation<[Element]?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.buffer.isEmpty ? s.waiter : nil
        }
        waiter?.resume(returning: nil)
    }

    /// The next batch (everything buffered), waiting for one if needed; `nil` when finished and drained.
    ///
    /// Runs on the caller's actor: a consumer isolated to the client's event loop is resumed there, with no hop
    /// through the global executor.
    func next(isolation actor: isolated (any Actor)? = #isolation) async -> [Element]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<[Element]?, Never>) in
                let immediate: [Element]?? = state.withLock { s in
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

/// An async sequence of batches: each element is everything buffered since the previous one.
///
/// Obtain one from ``PusherClient/eventBatches(bufferSize:)`` or ``PusherClient/frames(bufferSize:)``. Each
/// call makes a new, independent consumer with its own bounded buffer.
public struct Batches<Item: Sendable>: AsyncSequence, Sendable {
    public typealias Element = [Item]
    public typealias Failure = Never
    let buffer: BatchBuffer<Item>
    let onTermination: @Sendable () -> Void

    /// How many items this consumer lost because its buffer was full.
    public var droppedCount: Int { buffer.droppedCount }

    /// Whether the consumer is waiting for its next batch.
    var isWaiting: Bool { buffer.hasWaitingConsumer }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: BatchBuffer<Item>
        let onTermination: @Sendable () -> Void

        public mutating func next() async -> [Item]? {
            let batch = await buffer.next(isolation: nil)
            if batch == nil { onTermination() }
            return batch
        }

        /// The next batch, resumed on the caller's actor (no hop through the global executor).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> [Item]? {
            let batch = await buffer.next(isolation: actor)
            if batch == nil { onTermination() }
            return batch
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(buffer: buffer, onTermination: onTermination)
    }
}

/// Client events in batches (see ``PusherClient/eventBatches(bufferSize:)``).
public typealias ClientEventBatches = Batches<ClientEvent>
/// WebSocket frames in batches (see ``PusherClient/frames(bufferSize:)``).
public typealias WireFrameBatches = Batches<WireFrame>
