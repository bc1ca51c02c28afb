import NIOCore
import PusherProtocol
import Synchronization

/// Gathers the deliveries of one event to many sockets into one row: a client event (opened by its sender's
/// relay) or a presence member event (opened by its first delivery), posted with `delivered_to` after a short
/// window.
final class DeliveryLedger: Sendable {
    struct Key: Hashable, Sendable {
        var channel: String
        var event: String
        var data: String
    }

    private struct Pending {
        var row: ConsoleRow
        var to: [String]
    }

    /// How long deliveries of one event are gathered before its row goes out.
    static let window: TimeAmount = .milliseconds(100)

    private let pending = Mutex<[Key: Pending]>([:])
    private let post: @Sendable (ConsoleRow) -> Void

    init(post: @escaping @Sendable (ConsoleRow) -> Void) {
        self.post = post
    }

    /// A client event sent: its row waits for the deliveries.
    func open(_ key: Key, row: ConsoleRow, on eventLoop: any EventLoop) {
        let opened = pending.withLock { pending -> Bool in
            guard pending[key] == nil else { return false }
            pending[key] = Pending(row: row, to: [])
            return true
        }
        if opened { schedule(key, on: eventLoop) }
    }

    /// One delivery of `key` to `socketID`; opens the row with `row` when none is open.
    func deliver(_ key: Key, to socketID: String, orOpen row: ConsoleRow?, on eventLoop: any EventLoop) {
        let opened = pending.withLock { pending -> Bool in
            if pending[key] != nil {
                pending[key]!.to.append(socketID)
                return false
            }
            guard let row else { return false }
            pending[key] = Pending(row: row, to: [socketID])
            return true
        }
        if opened { schedule(key, on: eventLoop) }
    }

    private func schedule(_ key: Key, on eventLoop: any EventLoop) {
        eventLoop.scheduleTask(in: Self.window) { [self] in
            guard let done = pending.withLock({ $0.removeValue(forKey: key) }) else { return }
            var row = done.row
            row.deliveredTo = done.to.sorted()
            post(row)
        }
    }
}
