import NIOCore
import NIOWebSocket

/// Frames the hub queued for WebSockets during one turn, grouped by event loop.
///
/// ``send()`` does one `execute` per event loop: there it writes every frame to its socket (one frame, sharing
/// one encoded payload buffer, for all subscribers of an event) and flushes each socket once. Frames to one connection keep their
/// order, since each loop runs its queued work in order.
struct PendingDeliveries {
    private enum Write {
        case frame(WebSocketFrame)
        case close(code: Int, reason: String)
    }

    private struct LoopBatch {
        let loop: any EventLoop
        var writes: [(SocketOutlet, Write)] = []
    }

    private var batches: [ObjectIdentifier: LoopBatch] = [:]
    /// The last text frame made, so a fan-out makes one frame per event, not one per subscriber.
    private var lastText: (payload: ByteBuffer, frame: WebSocketFrame)?

    var isEmpty: Bool { batches.isEmpty }

    mutating func add(_ frame: OutboundFrame, to outlet: SocketOutlet) {
        let write: Write
        switch frame {
        case .text(let payload):
            if let lastText, Self.isSameStorage(lastText.payload, payload) {
                write = .frame(lastText.frame)
            } else {
                let frame = WebSocketFrame(fin: true, opcode: .text, data: payload)
                lastText = (payload, frame)
                write = .frame(frame)
            }
        case .close(let code, let reason):
            write = .close(code: code, reason: reason)
        }
        let key = ObjectIdentifier(outlet.eventLoop)
        if batches[key] == nil { batches[key] = LoopBatch(loop: outlet.eventLoop) }
        batches[key]!.writes.append((outlet, write))
    }

    private static func isSameStorage(_ a: ByteBuffer, _ b: ByteBuffer) -> Bool {
        a.readableBytes == b.readableBytes
            && a.withUnsafeReadableBytes { x in b.withUnsafeReadableBytes { y in x.baseAddress == y.baseAddress } }
    }

    /// Hands every batch to its event loop and starts over.
    mutating func send() {
        guard !batches.isEmpty else { return }
        for batch in batches.values {
            let writes = batch.writes
            batch.loop.execute {
                for (outlet, write) in writes {
                    switch write {
                    case .frame(let frame): outlet.write(frame)
                    case .close(let code, let reason): outlet.close(code: code, reason: reason)
                    }
                }
                for (outlet, _) in writes { outlet.flushIfNeeded() }
            }
        }
        batches.removeAll(keepingCapacity: true)
        lastText = nil
    }
}
