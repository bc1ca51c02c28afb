import NIOCore
import NIOWebSocket
import PusherProtocol

/// Joins a client's data frames into messages (``WebSocketMessageJoiner``, whose rules the proxy's relay shares) and
/// reads them, as a value: frames in, a message or the close code to fail the connection with out.
///
/// - Invalid UTF-8 in a text message: 1007.
/// - The joiner's rules: 1002 for a broken fragment sequence, 1009 for a message over the size limit.
/// - With permessage-deflate, a compressed message
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

    /// Whether permessage-deflate was agreed, so that messages may arrive compressed (RSV1 on their first frame).
    let inflates: Bool
    private var joiner: WebSocketMessageJoiner
    var maxMessageBytes: Int { joiner.maxMessageBytes }

    init(maxMessageBytes: Int, inflates: Bool = false) {
        self.joiner = WebSocketMessageJoiner(maxMessageBytes: maxMessageBytes)
        self.inflates = inflates
    }

    /// Takes one data frame (text, binary or continuation), already unmasked; `compressed` is its RSV1 bit (the
    /// caller has refused it where no extension allows it).
    mutating func receive(opcode: WebSocketOpcode, fin: Bool, compressed: Bool = false, payload: ByteBuffer) -> Outcome
    {
        if compressed, !inflates, opcode != .continuation {
            return .fail(code: 1002, reason: "A compressed message arrived without permessage-deflate")
        }
        switch joiner.receive(opcode: opcode, fin: fin, compressed: compressed, payload: payload) {
        case .incomplete: return .incomplete
        case .fail(let code, let reason): return .fail(code: code, reason: reason)
        case .message(let message): return complete(message.opcode, compressed: message.compressed, message.payload)
        }
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
