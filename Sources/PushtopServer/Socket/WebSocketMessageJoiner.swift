import NIOCore
import NIOWebSocket

/// Joins one side's data frames into whole messages under RFC 6455's rules, as a value: a frame in, a message (still
/// compressed when its first frame had RSV1) or the close code to fail that side with out. `serve`'s
/// ``WebSocketMessageAssembler`` and the proxy's relay both join through it.
///
/// - A continuation with no message started, or a new text/binary frame before the last one finished: 1002.
/// - RSV1 on a continuation frame (RFC 7692 section 6.1: only a message's first frame carries it): 1002.
/// - A message (all its fragments together) over the size limit: 1009.
package struct WebSocketMessageJoiner {
    /// One whole message as it arrived.
    package struct Message {
        package var opcode: WebSocketOpcode
        package var compressed: Bool
        package var payload: ByteBuffer
    }

    package enum Outcome {
        /// A fragment was kept; the message is not complete yet.
        case incomplete
        case message(Message)
        /// The connection must close with this code (RFC 6455 section 7.4.1).
        case fail(code: Int, reason: String)
    }

    package let maxMessageBytes: Int
    private var partial: Message?

    package init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Takes one data frame (text, binary or continuation), already unmasked; `compressed` is its RSV1 bit.
    package mutating func receive(opcode: WebSocketOpcode, fin: Bool, compressed: Bool, payload: ByteBuffer) -> Outcome
    {
        var payload = payload
        switch opcode {
        case .text, .binary:
            guard partial == nil else {
                return .fail(code: 1002, reason: "A new message began before the fragmented one ended")
            }
            guard payload.readableBytes <= maxMessageBytes else { return tooLarge }
            let message = Message(opcode: opcode, compressed: compressed, payload: payload)
            if fin { return .message(message) }
            partial = message
            return .incomplete
        case .continuation:
            guard var message = partial else {
                return .fail(code: 1002, reason: "A continuation frame arrived with no message to continue")
            }
            guard !compressed else { return .fail(code: 1002, reason: "RSV1 is set on a continuation frame") }
            guard message.payload.readableBytes + payload.readableBytes <= maxMessageBytes else {
                partial = nil
                return tooLarge
            }
            // The kept fragment's buffer is not shared: appending does not copy it again.
            partial = nil
            message.payload.writeBuffer(&payload)
            guard fin else {
                partial = message
                return .incomplete
            }
            return .message(message)
        default:
            return .fail(code: 1002, reason: "Frame opcode \(opcode) is not a data frame")
        }
    }

    /// The rules a frame must pass before it is read at all, for both ends of a connection: reserved bits only as an
    /// agreed extension allows (RSV1 for permessage-deflate, on a message's first frame; never on a control frame,
    /// RFC 7692 section 6.1), and a client's frames masked (RFC 6455 section 5.1). The close code and reason, or
    /// `nil` when it passes.
    package static func violation(of frame: WebSocketFrame, fromClient: Bool, compressionAgreed: Bool) -> (
        code: Int, reason: String
    )? {
        if fromClient, frame.maskKey == nil { return (1002, "Client frames must be masked") }
        guard !frame.rsv2, !frame.rsv3, !frame.rsv1 || compressionAgreed else {
            return (1002, "Reserved bits are set but no extension was negotiated")
        }
        if frame.rsv1, frame.opcode != .text, frame.opcode != .binary {
            return (1002, "RSV1 is set on a \(frame.opcode) frame")
        }
        return nil
    }

    private var tooLarge: Outcome { .fail(code: 1009, reason: "Message exceeds the \(maxMessageBytes)-byte limit") }
}
