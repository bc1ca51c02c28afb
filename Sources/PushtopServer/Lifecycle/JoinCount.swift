import Synchronization

/// Counts the apps whose backplane joined its cluster (or gave up waiting), so that the server listens once all did.
final class JoinCount: Sendable {
    private let remaining: Mutex<Int>

    init(expected: Int) {
        remaining = Mutex(expected)
    }

    /// Whether no app is left to join.
    var isComplete: Bool { remaining.withLock { $0 <= 0 } }

    /// One app joined; `true` when it was the last one.
    func arrive() -> Bool {
        remaining.withLock { count in
            count -= 1
            return count == 0
        }
    }
}
