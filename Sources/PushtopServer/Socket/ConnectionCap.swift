import HummingbirdCore
import Logging

/// Caps the connections served at once; more wait in the listen backlog until one closes.
///
/// Logs a warning each time the cap is reached (not once per waiting connection), and a notice when
/// connections are accepted again.
struct ConnectionCap: AvailableConnectionsDelegate {
    let maxConnections: Int
    let logger: Logger
    private var open = 0

    init(maxConnections: Int, logger: Logger) {
        self.maxConnections = max(1, maxConnections)
        self.logger = logger
    }

    mutating func connectionOpened() {
        open += 1
        if open == maxConnections {
            logger.warning(
                "connection cap reached: new connections wait until one closes (raise it with --max-connections)",
                metadata: ["max_connections": "\(maxConnections)"])
        }
    }

    mutating func connectionClosed() {
        if open == maxConnections {
            logger.notice("accepting connections again", metadata: ["max_connections": "\(maxConnections)"])
        }
        open -= 1
    }

    func isAcceptingNewConnections() -> Bool {
        open < maxConnections
    }
}
