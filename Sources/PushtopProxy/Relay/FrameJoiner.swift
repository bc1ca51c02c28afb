import NIOCore
import NIOWebSocket

/// Joins one side's data frames into whole messages, as a value: a frame in, a message (still compressed when its
/// first frame had RSV1) or the close code to fail that side with out.
struct FrameJoiner {
    /// One whole message as it arrived.
    struct Message {
        var opcode: WebSocketOpcode
        var compressed: Bool
        var payload: ByteBuffer
    }

    enum Outcome {
        case incomplete
        case message(Message)
        case fail(code: Int, reason: String)
    }

    let maxMessageBytes: Int
    private var partial: Message?

    init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    mutating func receive(_ frame: WebSocketFrame) -> Outcome {
        var payload = frame.unmaskedData
        switch frame.opcode {
        case .text, .binary:
            guard partial == nil else { return .fail(code: 1002, reason: "A new message began before the last ended") }
            guard payload.readableBytes <= maxMessageBytes else { return tooLarge }
            let message = Message(opcode: frame.opcode, compressed: frame.rsv1, payload: payload)
            if frame.fin { return .message(message) }
            partial = message
            return .incomplete
        case .continuation:
            guard var message = partial else {
                return .fail(code: 1002, reason: "A continuation frame arrived with no message to continue")
            }
            guard message.payload.readableBytes + payload.readableBytes <= maxMessageBytes else {
                partial = nil
                return tooLarge
            }
            message.payload.writeBuffer(&payload)
            guard frame.fin else {
                partial = message
                return .incomplete
            }
            partial = nil
            return .message(message)
        default:
            return .fail(code: 1002, reason: "Frame opcode \(frame.opcode) is not a data frame")
        }
    }

    private var tooLarge: Outcome { .fail(code: 1009, reason: "Message exceeds the \(maxMessageBytes)-byte limit") }
}
