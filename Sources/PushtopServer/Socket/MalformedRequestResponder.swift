import NIOCore
import NIOHTTP1

/// Answers malformed HTTP on a listener without an HTTP handler of its own (`pushtop proxy`), as `serve`'s
/// ``HTTPAPIHandler`` does: 400 (431 for oversized headers) in its turn, once the requests read before it have been
/// answered, then the connection is closed.
///
/// NIO's `HTTPServerProtocolErrorHandler` answered at once: ahead of a pipelined request's answer, which the closing
/// connection then lost, and 400 for oversized headers. A request whose rest can never come (its body's framing is
/// what broke) is answered by this, and whatever its handler writes later is dropped. A connection too slow or idle
/// is closed by its ``RequestDeadline``, which this handler keeps.
final class MalformedRequestResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let deadline: RequestDeadline
    /// Complete requests handed on whose answers have not ended (below 0 while an answer ended before its request).
    private var owed = 0
    private var responseProgress = HTTPResponseProgress()
    /// The decoder's error, waiting for the answers owed before it.
    private var failure: HTTPParserError?
    /// The answer to the failure is written: nothing else is.
    private var answered = false

    init(deadline: RequestDeadline) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline.start(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline.stop()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline.stop()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        deadline.quiesce(event, context: context)
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        deadline.read(part, context: context)
        guard failure == nil else { return }
        if case .end = part { owed += 1 }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // After the decoder's error come its complaints about the bytes that follow: the answer covers them.
        if failure != nil { return }
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        failure = parseError
        answerIfDue(context: context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if answered {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        guard responseProgress.write(unwrapOutboundIn(data), context: context, data: data, promise: promise) else {
            return
        }
        owed -= 1
        deadline.answerEnded(context: context)
        answerIfDue(context: context)
    }

    /// Writes the failure's answer once every earlier answer has ended, then tells the rest of the pipeline and
    /// closes.
    private func answerIfDue(context: ChannelHandlerContext) {
        guard let failure, !answered, owed <= 0, !responseProgress.started else { return }
        answered = true
        let status: HTTPResponseStatus = failure == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        let body = context.channel.allocator.buffer(string: "Malformed HTTP request: \(failure)\n")
        let headers = HTTPHeaders([
            ("Connection", "close"), ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", "\(body.readableBytes)"),
        ])
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.fireErrorCaught(failure)
            context.close(promise: nil)
        }
    }
}
