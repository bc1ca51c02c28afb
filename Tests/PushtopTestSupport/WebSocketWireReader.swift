import NIOCore

/// One direction of a WebSocket connection's raw bytes as they cross a TCP proxy of the test kit: the HTTP head (the
/// upgrade request, or the server's answer) first, then frame after frame. The one reader of frame headers below any
/// WebSocket library, for ``FaultProxy``'s frame drops and observations.
///
/// Bytes are fed as they arrive; ``nextHead()`` and ``nextFrame()`` hand out what is whole so far, in order.
struct WebSocketWireReader {
    /// A whole frame: its header's fields and every byte of it (header, mask and payload) as it crossed the wire.
    struct Frame {
        var fin: Bool
        var rsv1: Bool
        var opcode: UInt8
        var bytes: ArraySlice<UInt8>
        /// Where the payload starts in ``bytes`` (its header's length, the mask key included).
        var payloadStart: Int
        var mask: [UInt8]?

        /// The payload, unmasked.
        var payload: [UInt8] {
            let masked = bytes.dropFirst(payloadStart)
            guard let mask else { return Array(masked) }
            return masked.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        }
        /// A close frame's status code (1005 when it carries none); `nil` for other frames.
        var closeCode: Int? {
            guard opcode == 0x8 else { return nil }
            let payload = payload
            return payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
        }
    }

    private var bytes: [UInt8] = []
    private(set) var pastHead = false

    mutating func feed(_ buffer: ByteBuffer) {
        bytes += buffer.readableBytesView
    }

    /// The HTTP head, `\r\n\r\n` included, once it is whole (and only once).
    mutating func nextHead() -> [UInt8]? {
        guard !pastHead, let end = bytes.firstRange(of: [13, 10, 13, 10]) else { return nil }
        pastHead = true
        defer { bytes.removeSubrange(..<end.upperBound) }
        return Array(bytes[..<end.upperBound])
    }

    /// The next whole frame after the head, taken out of what was fed.
    mutating func nextFrame() -> Frame? {
        guard pastHead, bytes.count >= 2 else { return nil }
        var length = Int(bytes[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            header = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[$1]) }
            header = 10
        }
        let masked = bytes[1] & 0x80 != 0
        let mask = masked && bytes.count >= header + 4 ? Array(bytes[header..<(header + 4)]) : nil
        if masked { header += 4 }
        guard bytes.count >= header + length else { return nil }
        let frame = Frame(
            fin: bytes[0] & 0x80 != 0, rsv1: bytes[0] & 0x40 != 0, opcode: bytes[0] & 0x0F,
            bytes: ArraySlice(bytes[..<(header + length)]), payloadStart: header, mask: mask)
        bytes.removeSubrange(..<(header + length))
        return frame
    }

    /// What was fed and not handed out yet (taken out).
    mutating func takeRest() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
