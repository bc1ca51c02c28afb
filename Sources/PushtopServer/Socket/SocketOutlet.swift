import NIOCore

/// The hub's handle on one WebSocket: where its frames are written, on its own event loop.
///
/// A fan-out writes one frame to each of thousands of sockets, and what costs most per socket is reaching memory
/// no other socket shares. So what a hub write needs sits here, in one small object: whether the socket takes
/// text frames, whether it awaits a flush, and, for a socket without TLS, the channel itself, to which the
/// frame's bytes go straight (what the pipeline's head would do: nothing but the head lies below the frame
/// encoder then), without reaching the ``WebSocketConnectionHandler`` or walking the pipeline.
///
/// - Important: Two owners, no locks. ``write(_:channelCore:)``, ``flushIfNeeded()``, ``close(code:reason:)`` and
///   the socket's state run on ``eventLoop`` only (the hub batches them with one `execute` per loop, see
///   ``PendingDeliveries``, whose closure checks the loop once per batch); ``lastTurn`` and ``lastIndex`` belong
///   to the hub's ``PendingDeliveries`` (the hub actor) alone. Hence `@unchecked Sendable`.
final class SocketOutlet: @unchecked Sendable {
    // The fields a delivery touches come first, so they share the object's first cache line.

    /// The channel, when text frames may bypass the pipeline (no TLS). Immutable, so the hub can put it next to
    /// the outlet in its batch (``PendingDeliveries``): the loop then reaches the channel without waiting for this
    /// object to arrive from memory first.
    let channelCore: (any ChannelCore)?
    /// The ``PendingDeliveries`` turn that last queued a frame for this socket, and that frame's place in its
    /// loop's batch: the socket is flushed after its last frame of a turn. Hub only.
    var lastTurn: UInt64 = 0
    var lastIndex = 0
    /// Whether text frames are still sent (the socket is open and no close frame has left). Loop only.
    private(set) var isOpen = true
    /// Whether text frames were written since the last flush. Loop only.
    private var needsFlush = false
    /// The socket's handler; `nil` once the socket ended (which breaks the handler's reference to this outlet).
    private var handler: WebSocketConnectionHandler?

    let eventLoop: any EventLoop
    /// permessage-deflate as agreed with this client; `nil`: its frames go uncompressed.
    let deflate: PerMessageDeflate?
    /// `ObjectIdentifier(eventLoop)`, so the hub groups frames by loop without copying the existential.
    let loopID: ObjectIdentifier

    /// An outlet for `handler`'s socket; `channelCore` when frames may go straight to the channel, `deflate` when
    /// the client negotiated compression.
    init(
        handler: WebSocketConnectionHandler, channelCore: (any ChannelCore)?, eventLoop: any EventLoop,
        deflate: PerMessageDeflate? = nil
    ) {
        self.handler = handler
        self.channelCore = channelCore
        self.eventLoop = eventLoop
        self.deflate = deflate
        loopID = ObjectIdentifier(eventLoop)
    }

    /// Writes one text frame (not flushed); nothing once the socket is closing. `channelCore` is this outlet's
    /// ``channelCore``, as the hub's batch holds it. With permessage-deflate the frame goes compressed when that
    /// pays (compressed on the first such write of the frame, see ``EncodedTextFrame/bytes(for:)``).
    func write(_ frame: EncodedTextFrame, channelCore: (any ChannelCore)?) {
        assert(eventLoop.inEventLoop && channelCore === self.channelCore)
        guard isOpen else { return }
        if let channelCore {
            channelCore.write0(NIOAny(deflate == nil ? frame.bytes : frame.bytes(for: deflate)), promise: nil)
        } else {
            handler?.writeThroughPipeline(frame, deflate: deflate)
        }
        needsFlush = true
    }

    /// Flushes what ``write(_:channelCore:)`` wrote since the last flush.
    func flushIfNeeded() {
        assert(eventLoop.inEventLoop)
        guard needsFlush else { return }
        needsFlush = false
        if let channelCore {
            channelCore.flush0()
        } else {
            handler?.flushThroughPipeline()
        }
    }

    /// Sends a close frame, then drops the socket when the client answers or after the grace period.
    func close(code: Int, reason: String) {
        assert(eventLoop.inEventLoop)
        handler?.close(code: code, reason: reason)
    }

    // MARK: Told by the handler (on the loop)

    /// The handler flushed everything (a control frame written and flushed).
    func didFlush() {
        needsFlush = false
    }

    /// The socket sends no more text frames: its close frame left, or it ended.
    func stopText() {
        isOpen = false
    }

    /// The socket ended: drops the handler, which drops this outlet in turn (ending their cycle); the channel goes
    /// with the outlet, when the hub forgets the connection.
    func detach() {
        isOpen = false
        needsFlush = false
        handler = nil
    }
}
