import NIOCore
import NIOWebSocket

/// A server-to-client WebSocket text frame encoded once, header and payload in one buffer, so a fan-out writes
/// the same bytes to every subscriber: no frame header is built or allocated per socket, and each socket's
/// write is one buffer (one `write` system call rather than a two-buffer `writev`).
struct EncodedTextFrame: Sendable {
    /// The whole frame on the wire: FIN and the text opcode, the payload length, the payload (servers do not
    /// mask).
    let bytes: ByteBuffer
    private let headerLength: Int

    /// Encodes a frame of `payload` (a copy: the frame does not hold on to `payload`).
    init(payload: ByteBuffer) {
        let length = payload.readableBytes
        var bytes = ByteBuffer()
        bytes.reserveCapacity(length + 10)
        bytes.writeInteger(UInt8(0x81))
        if length < 126 {
            bytes.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            bytes.writeInteger(UInt8(126))
            bytes.writeInteger(UInt16(length))
        } else {
            bytes.writeInteger(UInt8(127))
            bytes.writeInteger(UInt64(length))
        }
        headerLength = bytes.readableBytes
        var copy = payload
        bytes.writeBuffer(&copy)
        self.bytes = bytes
    }

    /// The frame for a pipeline that encodes frames itself.
    var frame: WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: bytes.getSlice(at: bytes.readerIndex + headerLength,
                                                                       length: bytes.readableBytes - headerLength)!)
    }
}
