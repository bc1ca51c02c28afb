import NIOCore
import NIOWebSocket

/// Cuts a client connection's inbound bytes into WebSocket frames, on the connection's event loop.
///
/// The same rules as NIO's `WebSocketFrameDecoder` (the largest frame accepted, control frames neither fragmented
/// nor longer than 125 bytes, each refused with the same `NIOWebSocketError` as soon as the frame's length is read),
/// but read by ``PusherFrameHandler`` itself: a read's frames are cut straight from its bytes, with no
/// `ByteToMessageHandler`, no `WebSocketFrame` box per frame and no handler between the socket and the client. A
/// wake-up that brings one frame (an event at a time, the usual stream) then costs one pass over its header.
struct WebSocketFrameReader {
    /// One frame: its flags, its opcode and its payload, unmasked.
    struct Frame {
        var fin: Bool
        /// RSV1: the message is compressed (permessage-deflate).
        var rsv1: Bool
        var opcode: WebSocketOpcode
        var data: ByteBuffer
    }

    /// The largest frame payload accepted (larger: `NIOWebSocketError.invalidFrameLength`).
    let maxFrameSize: Int
    /// Bytes read but not yet cut into frames (the start of a frame whose end has not arrived).
    private var buffered: ByteBuffer?

    init(maxFrameSize: Int) {
        self.maxFrameSize = maxFrameSize
    }

    /// Adds the bytes of a read.
    mutating func append(_ bytes: ByteBuffer) {
        if buffered == nil || buffered!.readableBytes == 0 {
            buffered = bytes
        } else {
            var bytes = bytes
            buffered!.writeBuffer(&bytes)
        }
    }

    /// The next whole frame, or `nil` until more bytes arrive.
    /// - Throws: `NIOWebSocketError` for a frame NIO's decoder refuses; nothing more should be read then.
    mutating func next() throws(NIOWebSocketError) -> Frame? {
        guard var bytes = buffered, let header = try Self.header(bytes, maxFrameSize: maxFrameSize) else {
            return nil
        }
        guard bytes.readableBytes >= header.size + header.length else { return nil }
        bytes.moveReaderIndex(forwardBy: header.size)
        var data = bytes.readSlice(length: header.length)!
        buffered = bytes.readableBytes == 0 ? nil : bytes
        if let mask = header.mask { data.webSocketUnmask(mask) }
        let first = header.first
        return Frame(
            fin: first & 0x80 != 0, rsv1: first & 0x40 != 0,
            opcode: WebSocketOpcode(encodedWebSocketOpcode: first & 0x0F)!, data: data)
    }

    /// A frame's header: its first byte, its size, the payload's length and mask; `nil` while incomplete.
    private static func header(_ bytes: ByteBuffer, maxFrameSize: Int) throws(NIOWebSocketError)
        -> (first: UInt8, size: Int, length: Int, mask: WebSocketMaskingKey?)?
    {
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self),
            let second = bytes.getInteger(at: bytes.readerIndex + 1, as: UInt8.self)
        else { return nil }
        let masked = second & 0x80 != 0
        var size = 2
        let length: Int
        switch second & 0x7F {
        case 126:
            guard let word = bytes.getInteger(at: bytes.readerIndex + 2, as: UInt16.self) else { return nil }
            length = Int(word)
            size += 2
        case 127:
            guard let qword = bytes.getInteger(at: bytes.readerIndex + 2, as: UInt64.self) else { return nil }
            guard qword <= UInt64(Int.max) else { throw .invalidFrameLength }
            length = Int(qword)
            size += 8
        case let short:
            length = Int(short)
        }
        // As NIO's decoder: checked once the length is known, before the mask and the payload arrive.
        guard length <= maxFrameSize else { throw .invalidFrameLength }
        let isControl = first & 0x08 != 0
        if isControl && first & 0x80 == 0 { throw .fragmentedControlFrame }
        if isControl && length > 125 { throw .multiByteControlFrameLength }
        var mask: WebSocketMaskingKey?
        if masked {
            // A server must not mask (RFC 6455 5.1), but NIO's decoder unmasks what comes masked: so do we.
            guard let key = bytes.getBytes(at: bytes.readerIndex + size, length: 4) else { return nil }
            mask = WebSocketMaskingKey(key)
            size += 4
        }
        return (first, size, length, mask)
    }
}
