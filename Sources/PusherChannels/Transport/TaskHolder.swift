import Synchronization

/// Holds a task so that it can be cancelled later from any thread.
final class TaskHolder: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    func set(_ task: Task<Void, Never>) {
        self.task.withLock { $0 = task }
    }

    func cancel() {
        task.withLock { $0?.cancel() }
    }

    /// Cancels the task if it is still running after `seconds` (a close that the peer never answers).
    func cancelAfter(seconds: Double) {
        guard let task = task.withLock({ $0 }) else { return }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            task.cancel()
        }
    }
}
