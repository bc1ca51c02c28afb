import Synchronization

/// A mark in the hub's queue that ``HubInbox/drained()`` waits on: it passes when the hub reaches it, after every
/// event queued before it.
///
/// Its waiter is resumed exactly once: when the hub reaches it, or when it is dropped unreached (the server stopped
/// and the queue with it), so an HTTP request never waits on a hub that is gone.
final class HubBarrier: Sendable {
    private let waiter: Mutex<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) {
        waiter = Mutex(continuation)
    }

    /// Lets the waiter go (once; later calls do nothing).
    func pass() {
        let continuation = waiter.withLock { waiter -> CheckedContinuation<Void, Never>? in
            defer { waiter = nil }
            return waiter
        }
        continuation?.resume()
    }

    deinit {
        pass()
    }
}
