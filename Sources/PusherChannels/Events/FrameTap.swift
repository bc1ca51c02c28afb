import PusherProtocol
import Synchronization

/// Where the transport offers every WebSocket frame, in both directions, for the wire inspector and
/// `watch --frames`.
///
/// Costs one relaxed atomic load per frame while nobody taps: ``isOn`` is false until a consumer asks
/// for frames with ``PusherClient/frames(bufferSize:)``.
public final class FrameTap: Sendable {
    private struct State {
        var sinks: [Int: BatchBuffer<WireFrame>] = [:]
        var callbacks: [@Sendable ([WireFrame]) -> Void] = []
        var nextID = 0
        var finished = false
    }

    private let on = Atomic<Bool>(false)
    private let state = Mutex(State())

    /// A tap with no consumers (off).
    public init() {}

    /// Whether any consumer taps frames (checked by the transport before it builds a `WireFrame`).
    public var isOn: Bool { on.load(ordering: .relaxed) }

    /// Hands frames to every consumer (one call per read burst).
    public func publish(_ frames: [WireFrame]) {
        guard !frames.isEmpty else { return }
        let (sinks, callbacks) = state.withLock { (Array($0.sinks.values), $0.callbacks) }
        for sink in sinks { sink.push(frames) }
        for callback in callbacks { callback(frames) }
    }

    func addCallback(_ body: @escaping @Sendable ([WireFrame]) -> Void) {
        state.withLock { s in
            guard !s.finished else { return }
            s.callbacks.append(body)
            on.store(true, ordering: .relaxed)
        }
    }

    func makeBatches(capacity: Int) -> WireFrameBatches {
        let buffer = BatchBuffer<WireFrame>(capacity: capacity)
        let id: Int? = state.withLock { s in
            guard !s.finished else { return nil }
            let id = s.nextID
            s.nextID += 1
            s.sinks[id] = buffer
            on.store(true, ordering: .relaxed)
            return id
        }
        if id == nil { buffer.finish() }
        return Batches(buffer: buffer) { [weak self] in
            guard let self, let id else { return }
            self.state.withLock { s in
                s.sinks.removeValue(forKey: id)
                if s.sinks.isEmpty && s.callbacks.isEmpty { self.on.store(false, ordering: .relaxed) }
            }
        }
    }

    func finish() {
        let sinks = state.withLock { s -> [BatchBuffer<WireFrame>] in
            s.finished = true
            s.callbacks = []
            defer { s.sinks = [:] }
            on.store(false, ordering: .relaxed)
            return Array(s.sinks.values)
        }
        for sink in sinks { sink.finish() }
    }
}
