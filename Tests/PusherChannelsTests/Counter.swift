import Synchronization

/// A thread-safe count, for callbacks the client calls off the test's task.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
