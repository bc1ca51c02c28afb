import NIOCore

/// Answers an HTTP/0.9 request line (`GET /` with no version) with 400 and closes, before the HTTP decoder sees it.
///
/// NIO's decoder (llhttp) takes such a line as the start of a request and waits for headers that an HTTP/0.9
/// client never sends, so the connection would hang, unanswered, until the request timeout. This handler looks at
/// the connection's first request line only, in bytes: a line of two words (method and target) is HTTP/0.9.
/// Anything else, including garbage the decoder refuses itself, is passed on untouched, and the handler removes
/// itself. It sits right before the HTTP codec (after TLS, when the server speaks it).
final class HTTP09RequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Past this many bytes without a line end the line is not HTTP/0.9's business: the decoder judges it.
    static let maxLineBytes = 8_192

    private var held: ByteBuffer?
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        var buffer = unwrapInboundIn(data)
        if var held = self.held {
            held.writeBuffer(&buffer)
            buffer = held
        }
        switch Self.judge(buffer.readableBytesView) {
        case .undecided:
            held = buffer
        case .http09:
            held = nil
            refused = true
            respond(context: context)
        case .pass:
            held = nil
            context.fireChannelRead(wrapInboundOut(buffer))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    /// What the start of a connection's bytes say about its first request line.
    enum Verdict: Equatable {
        case undecided
        case http09
        case pass
    }

    static func judge<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Verdict {
        // Empty lines before the request line are ignored (RFC 9112 section 2.2).
        let start = bytes.drop { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
        guard let end = start.firstIndex(of: UInt8(ascii: "\n")) else {
            return bytes.count > maxLineBytes ? .pass : .undecided
        }
        var line = start[..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        let words = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard words.count == 2, words[0].allSatisfy(isTokenCharacter), words[1].first == UInt8(ascii: "/") else {
            return .pass
        }
        return .http09
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"): true
        default: false
        }
    }

    private func respond(context: ChannelHandlerContext) {
        let body = "HTTP/0.9 requests are not served: send HTTP/1.1\n"
        let response =
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
