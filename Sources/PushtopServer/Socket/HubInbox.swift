import NIOConcurrencyHelpers

/// The one ordered queue from every WebSocket's event loop to the hub.
///
/// A connection's events are yielded from its event loop in order and the hub reads them in that order, so no
/// task or stream exists per connection: one task (``PusherHub/run()``) drains the queue for the whole server.
final class HubInbox: Sendable {
    let events: AsyncStream<SocketEvent>
    private let continuation: AsyncStream<SocketEvent>.Continuation
    private let lastID = NIOLockedValueBox(0)

    init() {
        (events, continuation) = AsyncStream.makeStream(of: SocketEvent.self)
    }

    /// A connection id no other connection has had.
    func nextConnectionID() -> ConnectionID {
        ConnectionID(rawValue: lastID.withLockedValue { $0 += 1; return $0 })
    }

    func yield(_ event: SocketEvent) {
        continuation.yield(event)
    }

    /// Ends the queue (the server stopped).
    func finish() {
        continuation.finish()
    }
}
