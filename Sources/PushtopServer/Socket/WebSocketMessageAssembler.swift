import NIOCore
import NIOWebSocket
import PusherProtocol

/// Joins a client's data frames into messages and enforces RFC 6455's rules on them, as a value: frames in,
/// a message or the close code to fail the connection with out.
///
/// - Invalid UTF-8 in a text message: 1007.
/// - A continuation with no message started, or a new text/binary frame before the last one finished: 1002.
/// - A message (all its fragments together) over the size limit: 1009; with permessage-deflate, a compressed message
///   is held to the limit both as received and as inflated (inflation stops one byte past the limit: 1009), and one
///   that does not inflate closes with 1007.
struct WebSocketMessageAssembler {
    /// One complete message from the client.
    enum Message: Equatable {
        case text(String)
        case binary(size: Int)
    }

    /// What a frame did.
    enum Outcome: Equatable {
        /// A fragment was kept; the message is not complete yet.
        case incomplete
        case message(Message)
        /// The connection must close with this code (RFC 6455 section 7.4.1).
        case fail(code: Int, reason: String)
    }

    let maxMessageBytes: Int
    /// Whether permessage-deflate was agreed, so that messages may arrive compressed (RSV1 on their first frame).
    let inflates: Bool
    private var partialOpcode: WebSocketOpcode?
    private var partialCompressed = false
    private var partial = ByteBuffer()

    init(maxMessageBytes: Int, inflates: Bool = false) {
        self.maxMessageBytes = maxMessageBytes
        self.inflates = inflates
    }

    /// Takes one data frame (text, binary or continuation), already unmasked; `compressed` is its RSV1 bit (the
    /// caller has refused it where no extension allows it).
    mutating func receive(opcode: WebSocketOpcode, fin: Bool, compressed: Bool = false, payload: ByteBuffer) -> Outcome
    {
        var payload = payload
        switch opcode {
        case .text, .binary:
            guard partialOpcode == nil else {
                return .fail(code: 1002, reason: "A new message began before the fragmented one ended")
            }
            guard !compressed || inflates else {
                return .fail(code: 1002, reason: "A compressed message arrived without permessage-deflate")
            }
            guard payload.readableBytes <= maxMessageBytes else { return tooLarge }
            if fin { return complete(opcode, compressed: compressed, payload) }
            partialOpcode = opcode
            partialCompressed = compressed
            partial.clear()
            partial.writeBuffer(&payload)
            return .incomplete
        case .continuation:
            guard let opcode = partialOpcode else {
                return .fail(code: 1002, reason: "A continuation frame arrived with no message to continue")
            }
            guard !compressed else { return .fail(code: 1002, reason: "RSV1 is set on a continuation frame") }
            guard partial.readableBytes + payload.readableBytes <= maxMessageBytes else {
                partialOpcode = nil
                partial = ByteBuffer()
                return tooLarge
            }
            partial.writeBuffer(&payload)
            guard fin else { return .incomplete }
            let whole = partial
            partialOpcode = nil
            partial = ByteBuffer()
            return complete(opcode, compressed: partialCompressed, whole)
        default:
            return .fail(code: 1002, reason: "Frame opcode \(opcode) is not a data frame")
        }
    }

    private var tooLarge: Outcome {
        .fail(code: 1009, reason: "Message exceeds the \(maxMessageBytes)-byte limit")
    }

    private func complete(_ opcode: WebSocketOpcode, compressed: Bool, _ payload: ByteBuffer) -> Outcome {
        var payload = payload
        if compressed {
            switch BoundedInflater.inflate(payload, maxBytes: maxMessageBytes) {
            case .success(let inflated): payload = inflated
            case .failure(.tooLarge):
                return .fail(code: 1009, reason: "Message inflates past the \(maxMessageBytes)-byte limit")
            case .failure(.corrupt): return .fail(code: 1007, reason: "Compressed message does not inflate")
            }
        }
        guard opcode == .text else { return .message(.binary(size: payload.readableBytes)) }
        guard let text = Self.validUTF8(payload) else {
            return .fail(code: 1007, reason: "Text message is not valid UTF-8")
        }
        return .message(.text(text))
    }

    /// The text of `buffer`, or `nil` when it is not valid UTF-8 (no replacement characters are made up).
    static func validUTF8(_ buffer: ByteBuffer) -> String? {
        UTF8Validation.string(validating: buffer.readableBytesView)
    }
}
