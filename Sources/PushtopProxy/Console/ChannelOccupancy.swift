import PusherProtocol
import PushtopServer
import Synchronization

/// Channels occupied as the proxy sees them: how many of its relayed sockets the upstream confirmed in each. A
/// channel's first such socket makes an `occupied` row, its last one leaving a `vacated` row, and the feed's
/// `hello` lists the occupied channels, so the console's counts work on a proxy as on `serve`. Clients that reach
/// the server some other way are not counted.
final class ChannelOccupancy: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    private let console: ConsoleHub

    init(console: ConsoleHub) {
        self.console = console
    }

    /// A relayed socket is in `channel` now (its subscription succeeded).
    func joined(_ channel: String) {
        let first = counts.withLock { counts in
            counts[channel, default: 0] += 1
            return counts[channel] == 1
        }
        if first { post(.occupied, channel) }
    }

    /// A relayed socket left `channel` (unsubscribed, or its connection ended).
    func left(_ channel: String) {
        let last = counts.withLock { counts in
            guard let count = counts[channel] else { return false }
            counts[channel] = count > 1 ? count - 1 : nil
            return count == 1
        }
        if last { post(.vacated, channel) }
    }

    /// The occupied channels, sorted.
    var occupied: [String] { counts.withLock { $0.keys.sorted() } }

    private func post(_ type: ConsoleRowType, _ channel: String) {
        console.emit {
            var row = ConsoleRow(type: type, timeMs: ConsoleClock.nowMs())
            row.channel = channel
            return row
        }
    }
}
