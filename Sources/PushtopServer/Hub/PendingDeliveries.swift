import NIOCore

/// Frames the hub queued for WebSockets during one turn, grouped by event loop.
///
/// ``send()`` does one `execute` per event loop: there it writes every frame to its socket (one
/// ``EncodedTextFrame``, header and payload encoded once, for all subscribers of an event) and flushes each socket
/// once. Frames to one connection keep their order, since each loop runs its queued work in order.
struct PendingDeliveries {
    private enum Write {
        case text(EncodedTextFrame)
        case close(code: Int, reason: String)
    }

    private struct LoopBatch {
        let loop: any EventLoop
        let id: ObjectIdentifier
        var writes: [(SocketOutlet, Write)] = []
        /// The last text frame made for this loop, so a fan-out makes one frame per event and loop, not one per
        /// subscriber. Each loop gets its own copy: its sockets' writes retain and release the buffer, and
        /// sharing one buffer between loops would make their cores contend for its reference count.
        var lastText: (source: ByteBuffer, frame: EncodedTextFrame)?

        mutating func add(_ frame: OutboundFrame, to outlet: SocketOutlet) {
            switch frame {
            case .text(let payload):
                if let lastText, PendingDeliveries.isSameStorage(lastText.source, payload) {
                    writes.append((outlet, .text(lastText.frame)))
                } else {
                    let frame = EncodedTextFrame(payload: payload)
                    lastText = (payload, frame)
                    writes.append((outlet, .text(frame)))
                }
            case .close(let code, let reason):
                writes.append((outlet, .close(code: code, reason: reason)))
            }
        }
    }

    /// One batch per event loop that has frames this turn: a handful (the loops of the server), so a linear
    /// search is cheaper per frame than hashing.
    private var batches: [LoopBatch] = []

    var isEmpty: Bool { batches.isEmpty }

    mutating func add(_ frame: OutboundFrame, to outlet: SocketOutlet) {
        let loop = ObjectIdentifier(outlet.eventLoop)
        if let index = batches.firstIndex(where: { $0.id == loop }) {
            batches[index].add(frame, to: outlet)
        } else {
            var batch = LoopBatch(loop: outlet.eventLoop, id: loop)
            batch.add(frame, to: outlet)
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
            let writes = batch.writes
            batch.loop.execute {
                for (outlet, write) in writes {
                    switch write {
                    case .text(let frame): outlet.write(frame)
                    case .close(let code, let reason): outlet.close(code: code, reason: reason)
                    }
                }
                for (outlet, _) in writes { outlet.flushIfNeeded() }
            }
        }
        batches.removeAll(keepingCapacity: true)
    }
}
