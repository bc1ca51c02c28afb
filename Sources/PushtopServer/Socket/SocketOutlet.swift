import NIOCore

/// The hub's handle on one WebSocket: where its frames are written, on its own event loop.
///
/// - Important: ``write(_:)``, ``flushIfNeeded()`` and ``close(code:reason:)`` must run on ``eventLoop``; the
///   hub batches them with one `execute` per loop (see ``PendingDeliveries``).
final class SocketOutlet: Sendable {
    let eventLoop: any EventLoop
    private let handler: NIOLoopBound<WebSocketConnectionHandler>

    init(handler: WebSocketConnectionHandler, eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.handler = NIOLoopBound(handler, eventLoop: eventLoop)
    }

    /// Writes one text frame (not flushed).
    func write(_ frame: EncodedTextFrame) { handler.value.write(frame) }

    /// Flushes what ``write(_:)`` wrote since the last flush.
    func flushIfNeeded() { handler.value.flushIfNeeded() }

    /// Sends a close frame, then drops the socket when the client answers or after the grace period.
    func close(code: Int, reason: String) { handler.value.close(code: code, reason: reason) }
}
