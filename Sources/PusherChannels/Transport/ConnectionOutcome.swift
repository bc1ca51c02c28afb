import NIOCore

/// How one transport connection ended, gathered by its handlers and reported once, as the last event.
///
/// Touched only on the connection's event loop.
final class ConnectionOutcome: @unchecked Sendable {
    /// The close code and reason of the server's close frame, once one arrived.
    var closeFrame: (code: Int, reason: String)?
    /// Why the connection failed, when it did (the first reason wins).
    var failure: String?
    private var reported = false
    private let deliver: @Sendable ([TransportEvent]) -> Void

    init(deliver: @escaping @Sendable ([TransportEvent]) -> Void) {
        self.deliver = deliver
    }

    func fail(_ reason: String) {
        if failure == nil { failure = reason }
    }

    /// Hands `events` over, followed by `.closed` when `ending` (only once per connection).
    func report(_ events: [TransportEvent], ending: Bool = false) {
        guard !reported else { return }
        var events = events
        if ending {
            reported = true
            if let closeFrame {
                events.append(.closed(code: closeFrame.code, reason: closeFrame.reason))
            } else {
                events.append(.closed(code: nil, reason: failure ?? "connection closed without a close frame"))
            }
        }
        if !events.isEmpty { deliver(events) }
    }
}
