import PusherProtocol

extension PusherClient {
    // MARK: - Consuming events

    /// A new consumer taking events in batches (everything buffered since its last pull).
    /// - Parameter bufferSize: events kept before the oldest are dropped (and counted).
    public nonisolated func eventBatches(bufferSize: Int = 100_000) -> ClientEventBatches {
        broadcaster.makeBatches(capacity: bufferSize)
    }

    /// A new consumer taking events one by one.
    /// - Parameter bufferSize: events kept before the oldest are dropped (counted in ``droppedEventCount``).
    public nonisolated func events(bufferSize: Int = 10_000) -> AsyncStream<ClientEvent> {
        broadcaster.makeStream(capacity: bufferSize)
    }

    /// Events dropped by ``events(bufferSize:)`` streams whose buffers were full.
    public nonisolated var droppedEventCount: Int { broadcaster.streamDroppedCount }

    /// A new consumer of every WebSocket frame in both directions (text as on the wire, after inflation; pings,
    /// pongs and close frames), in batches. While at least one such consumer exists, each delivered
    /// `ChannelEvent` also carries its frame's text in `ChannelEvent/rawFrame`. Costs nothing while nobody taps.
    /// - Parameter bufferSize: frames kept before the oldest are dropped (counted in the batches' `droppedCount`).
    public nonisolated func frames(bufferSize: Int = 10_000) -> WireFrameBatches {
        tap.makeBatches(capacity: bufferSize)
    }

    /// Calls `body` with every batch of events, synchronously, on the client's event loop and isolated to the
    /// client (so it may call `client.assumeIsolated { … }`), as each read burst is handled: the cheapest consumer,
    /// with no buffer, task or wake-up of its own. Keep `body` short: the connection waits for it. It is called
    /// until ``shutdown(closeTimeout:)``.
    public nonisolated func onEventBatch(_ body: @escaping @Sendable ([ClientEvent]) -> Void) {
        broadcaster.addCallback(body)
    }

    /// Calls `body` with every batch of WebSocket frames (see ``frames(bufferSize:)``), synchronously on the
    /// client's event loop, until ``shutdown(closeTimeout:)``.
    public nonisolated func onFrames(_ body: @escaping @Sendable ([WireFrame]) -> Void) {
        tap.addCallback(body)
    }

    /// Calls `callback` for every event named `event` (every event when nil) on `channel` (every channel when
    /// nil). Callbacks run on the client's executor: keep them short.
    @discardableResult
    public func bind(
        event: String? = nil, channel: String? = nil,
        _ callback: @escaping @Sendable (ChannelEvent) -> Void
    ) -> BindingHandle {
        bindings.bind(event: event, channel: channel, callback)
    }

    /// Removes the binding `handle` came from; does nothing if it is already gone.
    public func unbind(_ handle: BindingHandle) {
        bindings.unbind(handle)
    }

    /// Removes the bindings of `channel`, or all bindings when `channel` is nil.
    public func unbindAll(channel: String? = nil) {
        bindings.unbindAll(channel: channel)
    }
}
