import NIOCore

extension ByteBuffer {
    /// Writes a close frame's payload: `code`, then as much of `reason` as fits a control frame (123 bytes of
    /// UTF-8, cut between characters). What `serve` and the proxy's relay ends send.
    package mutating func writeClosePayload(code: Int, reason: String) {
        writeInteger(UInt16(clamping: code))
        var bytes = 0
        var fitting = ""
        for character in reason {
            bytes += character.utf8.count
            guard bytes <= 123 else { break }
            fitting.append(character)
        }
        writeString(fitting)
    }
}
