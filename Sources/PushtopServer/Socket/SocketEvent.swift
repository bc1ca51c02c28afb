/// What a WebSocket connection tells the hub, in the order it happened on that socket.
enum SocketEvent: Sendable {
    /// The upgrade to `/app/{appKey}?protocol=N` completed.
    case opened(
        ConnectionID, SocketOutlet, appKey: String, protocolVersion: String?, info: ConsoleConnectionInfo)
    /// Complete messages from one read burst.
    case received(ConnectionID, [WebSocketMessageAssembler.Message])
    /// Its unsent bytes passed the high-water mark: it is being closed with 4100.
    case overCapacity(ConnectionID, pendingBytes: Int)
    /// The socket ended, however it ended (close handshake, FIN, RST, write failure, server shutdown); `code` is
    /// the client's close code when it sent a close frame.
    case closed(ConnectionID, code: Int? = nil)
    /// Events published through the HTTP API, already checked (``HTTPAPICore``).
    case published([PublishRequest])
    /// Nothing to do but let a waiter go: every event before it has been handled (``HubInbox/drained()``).
    case barrier(HubBarrier)
}
