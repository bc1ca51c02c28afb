import PusherProtocol
import Synchronization

/// One reader of an app's debug feed: a bounded queue of rows that the server fills without ever waiting, and
/// that the feed's writer drains at the reader's pace.
///
/// When the queue is full the oldest row is dropped and counted; the next ``next()`` starts with a `gap` row
/// saying how many were lost. A slow or stuck reader therefore costs the server a bounded amount of memory and
/// nothing else.
package final class ConsoleListener: Sendable {
    /// What ``next()`` hands the writer.
    enum Batch: Sendable, Equatable {
        /// Rows to write (a `gap` first when some were dropped).
        case rows([ConsoleRow])
        /// Nothing new since the last call, and ``wake()`` was called (time for a keep-alive).
        case idle
        /// The feed is over (the server stops, or the listener was removed).
        case finished
    }

    private struct State {
        var rows: [ConsoleRow] = []
        /// Index of the oldest row still queued in ``rows``.
        var head = 0
        var dropped = 0
        var finished = false
        var woken = false
        var waiter: CheckedContinuation<Void, Never>?

        var count: Int { rows.count - head }
    }

    /// The types this listener asked for (`nil`: every type).
    let types: Set<ConsoleRowType>?
    /// Rows kept at most; past it the oldest go.
    let capacity: Int
    /// The node and app the `gap` rows name.
    let node: String
    let appID: String
    private let state = Mutex(State())

    init(types: Set<ConsoleRowType>?, capacity: Int, node: String, appID: String) {
        self.types = types
        self.capacity = max(1, capacity)
        self.node = node
        self.appID = appID
    }

    /// Whether the listener wants rows of this type.
    func wants(_ type: ConsoleRowType) -> Bool { types?.contains(type) ?? true }

    /// Queues a row; never waits. Past ``capacity`` the oldest row is dropped and counted.
    func push(_ row: ConsoleRow) {
        guard wants(row.type) else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.rows.append(row)
            if state.count > capacity {
                state.head += 1
                state.dropped += 1
                if state.head >= capacity {
                    state.rows.removeFirst(state.head)
                    state.head = 0
                }
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Rows queued now (for tests and the gap's bound).
    var queued: Int { state.withLock { $0.count } }

    /// Wakes a waiting ``next()`` with ``Batch/idle`` when nothing is queued (the keep-alive's tick).
    func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.woken = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Ends the feed: the writer's next ``next()`` returns what is left, then ``Batch/finished``.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The queued rows (a `gap` first when rows were dropped), waiting for some when none are queued.
    func next() async -> Batch {
        while true {
            if let batch = take() { return batch }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let ready = state.withLock { state -> Bool in
                        if state.count > 0 || state.dropped > 0 || state.finished || state.woken { return true }
                        state.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                finish()
            }
        }
    }

    private func take() -> Batch? {
        state.withLock { state -> Batch? in
            if state.count > 0 || state.dropped > 0 {
                var rows: [ConsoleRow] = []
                rows.reserveCapacity(state.count + 1)
                if state.dropped > 0 {
                    var gap = ConsoleRow(type: .gap, timeMs: ConsoleClock.nowMs())
                    gap.node = node
                    gap.appID = appID
                    gap.source = .server
                    gap.dropped = state.dropped
                    rows.append(gap)
                    state.dropped = 0
                }
                rows.append(contentsOf: state.rows[state.head...])
                state.rows.removeAll(keepingCapacity: true)
                state.head = 0
                state.woken = false
                return .rows(rows)
            }
            if state.finished { return .finished }
            if state.woken {
                state.woken = false
                return .idle
            }
            return nil
        }
    }
}
