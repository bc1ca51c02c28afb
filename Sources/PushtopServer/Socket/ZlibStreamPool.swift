import NIOCore
import Synchronization

/// zlib streams kept for reuse, so that compressing or inflating a message costs a reset, not the allocation and
/// set-up of a stream (a deflate stream holds about 256 KiB).
///
/// A stream is taken by one thread for one message, then given back: at most about one per event loop is ever in
/// use, and the pool keeps at most ``capacity`` idle ones.
///
/// - Important: A stream is used by one thread at a time (between ``take()`` and ``give(_:)``); that, and the lock
///   around the idle ones, is what makes the pool `Sendable`.
final class ZlibStreamPool<Stream: AnyObject>: @unchecked Sendable {
    private let idle = Mutex<[UnsafeTransfer<Stream>]>([])
    private let make: @Sendable () -> Stream?
    let capacity: Int

    /// A pool that makes its streams with `make` (`nil` when zlib cannot allocate one).
    init(capacity: Int = max(2, System.coreCount), make: @escaping @Sendable () -> Stream?) {
        self.capacity = capacity
        self.make = make
    }

    /// An idle stream, or a new one; `nil` when none can be made.
    func take() -> Stream? {
        let reused = idle.withLock { $0.popLast() }
        return reused?.value ?? make()
    }

    /// Gives back a stream taken with ``take()``, reset for its next message.
    func give(_ stream: Stream) {
        let transfer = UnsafeTransfer(stream)
        idle.withLock { streams in
            if streams.count < capacity { streams.append(transfer) }
        }
    }
}

/// Carries a stream across the pool's lock: the stream is used by one thread at a time.
private struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
