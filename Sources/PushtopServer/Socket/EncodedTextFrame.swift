import NIOCore
import NIOWebSocket

/// A server-to-client WebSocket text frame encoded once, header and payload in one buffer, so a fan-out writes
/// the same bytes to every subscriber: no frame header is built or allocated per socket, and each socket's
/// write is one buffer (one `write` system call rather than a two-buffer `writev`).
///
/// The frame's permessage-deflate form is made the first time a subscriber that negotiated compression needs it,
/// then shared by all copies of the frame (the hub makes one frame per event and event loop, so an event is
/// compressed at most once per loop, not once per socket).
package struct EncodedTextFrame: Sendable {
    /// The whole frame on the wire: FIN and the text opcode, the payload length, the payload (servers do not
    /// mask).
    let bytes: ByteBuffer
    private let headerLength: Int
    /// The compressed form, made on first use; `nil` when the payload is too short to be worth compressing.
    private let deflated: DeflatedTextFrame?

    /// Encodes a frame of `payload` (a copy: the frame does not hold on to `payload`).
    init(payload: ByteBuffer) {
        var bytes = ByteBuffer()
        bytes.reserveCapacity(payload.readableBytes + 10)
        headerLength = Self.append(payload, to: &bytes)
        self.bytes = bytes
        deflated = payload.readableBytes >= MessageDeflater.minimumPayloadBytes ? DeflatedTextFrame() : nil
    }

    /// Writes the unmasked text frame of `payload` (a copy) at the end of `bytes`, after the frames already there:
    /// what a server writes past the frame encoder (`pushtop proxy` gathers a burst of the upstream's messages this
    /// way, several frames in one buffer). Returns the header's length.
    @discardableResult
    package static func append(_ payload: ByteBuffer, to bytes: inout ByteBuffer) -> Int {
        let length = payload.readableBytes
        var headerLength = bytes.writeInteger(UInt8(0x81))
        if length < 126 {
            headerLength += bytes.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            headerLength += bytes.writeInteger(UInt8(126))
            headerLength += bytes.writeInteger(UInt16(length))
        } else {
            headerLength += bytes.writeInteger(UInt8(127))
            headerLength += bytes.writeInteger(UInt64(length))
        }
        bytes.writeImmutableBuffer(payload)
        return headerLength
    }

    /// The payload's length.
    var payloadLength: Int { bytes.readableBytes - headerLength }

    /// The frame for a pipeline that encodes frames itself.
    var frame: WebSocketFrame {
        WebSocketFrame(
            fin: true, opcode: .text,
            data: bytes.getSlice(
                at: bytes.readerIndex + headerLength,
                length: payloadLength)!)
    }

    /// The bytes to write to a socket with permessage-deflate (`deflate`), or without (`nil`): compressed when the
    /// client may inflate them and compressing shortens them, else ``bytes``.
    func bytes(for deflate: PerMessageDeflate?) -> ByteBuffer {
        compressed(for: deflate)?.bytes ?? bytes
    }

    /// ``frame`` for a socket with permessage-deflate: compressed (RSV1 set) when ``bytes(for:)`` is.
    func frame(for deflate: PerMessageDeflate?) -> WebSocketFrame {
        guard let compressed = compressed(for: deflate) else { return frame }
        let payload = compressed.bytes.getSlice(
            at: compressed.bytes.readerIndex + compressed.headerLength,
            length: compressed.bytes.readableBytes - compressed.headerLength)!
        return WebSocketFrame(fin: true, rsv1: true, opcode: .text, data: payload)
    }

    private func compressed(for deflate: PerMessageDeflate?) -> (bytes: ByteBuffer, headerLength: Int)? {
        guard let deflate, let deflated, payloadLength <= deflate.maxCompressedMessageBytes else { return nil }
        return deflated.form {
            MessageDeflater.frame(
                compressing: bytes.getSlice(at: bytes.readerIndex + headerLength, length: payloadLength)!)
        }
    }
}
