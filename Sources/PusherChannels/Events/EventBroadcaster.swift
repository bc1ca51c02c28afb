import PusherProtocol
import Synchronization

/// Fans events out to every consumer: batch buffers and per-event `AsyncStream`s, each bounded.
final class EventBroadcaster: Sendable {
    private enum Sink: Sendable {
        case batches(BatchBuffer<ClientEvent>)
        case stream(AsyncStream<ClientEvent>.Continuation)
        case callback(@Sendable ([ClientEvent]) -> Void)
    }

    private struct State {
        var sinks: [Int: Sink] = [:] {
            didSet { current = Array(sinks.values) }
        }
        /// The sinks as an array, rebuilt when they change, so that publishing copies nothing.
        var current: [Sink] = []
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())
    private let streamDrops = Atomic<Int>(0)

    /// Events that per-event streams dropped because their buffers were full.
    var streamDroppedCount: Int { streamDrops.load(ordering: .relaxed) }

    func makeBatches(capacity: Int) -> ClientEventBatches {
        let buffer = BatchBuffer<ClientEvent>(capacity: capacity)
        let id = add(.batches(buffer))
        if id == nil { buffer.finish() }
        return Batches(buffer: buffer) { [weak self] in
            if let id { self?.remove(id) }
        }
    }

    func makeStream(capacity: Int) -> AsyncStream<ClientEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ClientEvent.self, bufferingPolicy: .bufferingNewest(max(1, capacity)))
        guard let id = add(.stream(continuation)) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    /// Adds a consumer called with every batch, synchronously, by whoever publishes.
    func addCallback(_ body: @escaping @Sendable ([ClientEvent]) -> Void) {
        _ = add(.callback(body))
    }

    func publish(_ events: [ClientEvent]) {
        guard !events.isEmpty else { return }
        let sinks = state.withLock { $0.current }
        for sink in sinks {
            switch sink {
            case .batches(let buffer):
                buffer.push(events)
            case .stream(let continuation):
                for event in events {
                    if case .dropped = continuation.yield(event) {
                        streamDrops.add(1, ordering: .relaxed)
                    }
                }
            case .callback(let body):
                body(events)
            }
        }
    }

    /// Ends every consumer's sequence; later consumers end at once.
    func finish() {
        let sinks = state.withLock { s -> [Sink] in
            s.finished = true
            defer { s.sinks = [:] }
            return Array(s.sinks.values)
        }
        for sink in sinks {
            switch sink {
            case .batches(let buffer): buffer.finish()
            case .stream(let continuation): continuation.finish()
            case .callback: break
            }
        }
    }

    private func add(_ sink: Sink) -> Int? {
        state.withLock { s in
            guard !s.finished else { return nil }
            let id = s.nextID
            s.nextID += 1
            s.sinks[id] = sink
            return id
        }
    }

    private func remove(_ id: Int) {
        state.withLock { _ = $0.sinks.removeValue(forKey: id) }
    }
}
