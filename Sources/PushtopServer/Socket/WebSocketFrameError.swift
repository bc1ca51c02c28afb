import NIOWebSocket

extension NIOWebSocketError {
    /// The close code and reason a peer whose frames NIO's decoder refused is failed with (RFC 6455 section 7.1.7):
    /// what `serve` and `pushtop proxy` send before the socket ends.
    package var closing: (code: Int, reason: String) {
        switch self {
        case .invalidFrameLength: return (1009, "Frame exceeds the message size limit")
        case .fragmentedControlFrame: return (1002, "Control frames must not be fragmented")
        case .multiByteControlFrameLength: return (1002, "Control frames carry at most 125 bytes")
        }
    }
}
