import NIOCore

/// Frames the hub queued for WebSockets during one turn, grouped by event loop.
///
/// ``send()`` does one `execute` per event loop: there it writes every frame to its socket (one
/// ``EncodedTextFrame``, header and payload encoded once, for all subscribers of an event) and flushes each socket
/// right after its last frame of the turn, so a fan-out touches each socket once. Frames to one connection keep
/// their order, since each loop runs its queued work in order and a batch keeps the order frames were added in.
///
/// - Important: Owned by one hub (an actor): ``add(_:to:)`` keeps its bookkeeping in the ``SocketOutlet``
///   (``SocketOutlet/lastTurn``), and an outlet belongs to one hub.
struct PendingDeliveries {
    private enum Write {
        case text(EncodedTextFrame)
        case close(code: Int, reason: String)
    }

    /// One socket's frame: which of its batch's ``LoopBatch/frames``, and whether it is the socket's last this
    /// turn (then the socket is flushed after it). `channelCore` is the outlet's (``SocketOutlet/channelCore``),
    /// held here without a reference count (the outlet holds the channel): the hub does not touch the channel,
    /// and the loop reaches it without waiting for the outlet. Sendable by hand for the same reason: the batch goes
    /// to its loop once, the channel is used there only, and the outlet that holds it travels along.
    private struct Entry: @unchecked Sendable {
        let outlet: SocketOutlet
        unowned(unsafe) let channelCore: (any ChannelCore)?
        let frame: Int
        var flushes: Bool
    }

    private struct LoopBatch {
        let loop: any EventLoop
        let id: ObjectIdentifier
        /// The distinct frames of this turn on this loop: a fan-out's subscribers share one.
        var frames: [Write] = []
        var entries: [Entry] = []
        /// The payload ``frames``' last text frame was made from, so a fan-out makes one frame per event and
        /// loop, not one per subscriber. Each loop gets its own copy: its sockets' writes retain and release the
        /// buffer, and sharing one buffer between loops would make their cores contend for its reference count.
        var lastTextSource: ByteBuffer?

        mutating func add(_ frame: OutboundFrame, to outlet: SocketOutlet, turn: UInt64) {
            let index: Int
            switch frame {
            case .text(let payload):
                if let lastTextSource, PendingDeliveries.isSameStorage(lastTextSource, payload) {
                    index = frames.count - 1
                } else {
                    lastTextSource = payload
                    index = frames.count
                    frames.append(.text(EncodedTextFrame(payload: payload)))
                }
            case .close(let code, let reason):
                lastTextSource = nil
                index = frames.count
                frames.append(.close(code: code, reason: reason))
            }
            if outlet.lastTurn == turn {
                entries[outlet.lastIndex].flushes = false
            }
            outlet.lastTurn = turn
            outlet.lastIndex = entries.count
            entries.append(Entry(outlet: outlet, channelCore: outlet.channelCore, frame: index, flushes: true))
        }

        /// Writes every entry; runs on ``loop``.
        func write() {
            loop.preconditionInEventLoop()
            frames.withUnsafeBufferPointer { frames in
                entries.withUnsafeBufferPointer { entries in
                    for entry in entries {
                        switch frames[entry.frame] {
                        case .text(let frame): entry.outlet.write(frame, channelCore: entry.channelCore)
                        case .close(let code, let reason): entry.outlet.close(code: code, reason: reason)
                        }
                        if entry.flushes { entry.outlet.flushIfNeeded() }
                    }
                }
            }
        }
    }

    /// One batch per event loop that has frames this turn: a handful (the loops of the server), so a linear
    /// search is cheaper per frame than hashing.
    private var batches: [LoopBatch] = []
    /// The batch of the last ``add(_:to:)``: consecutive frames mostly go to the same loop's sockets.
    private var lastBatch = 0
    /// Numbers this turn for ``SocketOutlet/lastTurn`` (0: never queued).
    private var turn: UInt64 = 1

    var isEmpty: Bool { batches.isEmpty }

    mutating func add(_ frame: OutboundFrame, to outlet: SocketOutlet) {
        let loop = outlet.loopID
        if lastBatch < batches.count, batches[lastBatch].id == loop {
            batches[lastBatch].add(frame, to: outlet, turn: turn)
        } else if let index = batches.firstIndex(where: { $0.id == loop }) {
            lastBatch = index
            batches[index].add(frame, to: outlet, turn: turn)
        } else {
            var batch = LoopBatch(loop: outlet.eventLoop, id: loop)
            batch.add(frame, to: outlet, turn: turn)
            lastBatch = batches.count
            batches.append(batch)
        }
    }

    private static func isSameStorage(_ a: ByteBuffer, _ b: ByteBuffer) -> Bool {
        a.readableBytes == b.readableBytes
            && a.withUnsafeReadableBytes { x in b.withUnsafeReadableBytes { y in x.baseAddress == y.baseAddress } }
    }

    /// Hands every batch to its event loop and starts over.
    mutating func send() {
        guard !batches.isEmpty else { return }
        for batch in batches {
            batch.loop.execute { batch.write() }
        }
        batches.removeAll(keepingCapacity: true)
        lastBatch = 0
        turn &+= 1
    }
}
