/// Where the hub sends a connection's frames: a WebSocket on its event loop, or an in-process stream.
enum ConnectionOutlet: Sendable {
    /// A WebSocket: frames are batched per event loop and written there (see ``PendingDeliveries``).
    case socket(SocketOutlet)
    /// An in-process client (the simulator, library users, tests): a bounded stream of frames.
    case stream(AsyncStream<OutboundFrame>.Continuation)
}
