import NIOCore

import enum PusherProtocol.WebSocketClosePayload

extension ByteBuffer {
    /// Writes a close frame's payload: `code`, then as much of `reason` as fits a control frame
    /// (``WebSocketClosePayload/fitting(_:)``). What `serve` and the proxy's relay ends send.
    package mutating func writeClosePayload(code: Int, reason: String) {
        writeInteger(UInt16(clamping: code))
        writeSubstring(WebSocketClosePayload.fitting(reason))
    }
}
