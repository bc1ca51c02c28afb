import NIOCore
import NIOHTTP1

/// Answers a request the HTTP decoder cannot parse (garbage, a bad or doubled `Content-Length`, a header line
/// without a colon, bare-LF line ends, an oversized request line or header block, an HTTP/2 preface) and closes.
///
/// Before a connection's first request head is parsed nobody else can answer: NIO's upgrader is still waiting
/// for it. Once a request reached Hummingbird, Hummingbird answers its later parse errors itself.
final class HTTPParseErrorResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var sawRequest = false
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { sawRequest = true }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, !sawRequest else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let status: HTTPResponseStatus = parseError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        WebSocketHandshakeValidator.respond(
            context: context, status: status, message: "Malformed HTTP request: \(parseError)")
    }
}
