import NIOCore
import NIOHTTP1
import PusherProtocol

/// One connection of the webhook receiver: reads each request's body up to the bound and hands it to the
/// ``WebhookRequestProcessor``; refuses a body over the bound with 413 and, when too many requests are in progress,
/// answers 503, without keeping what follows (it is read and dropped, up to a limit, so the sender sees the answer,
/// then the connection is closed).
final class WebhookHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case reading(HTTPRequestHead, ByteBuffer)
        /// Answered early: the rest of the request is dropped (at most `allowance` more bytes), then the connection
        /// closes.
        case draining(allowance: Int)
    }

    private let processor: WebhookRequestProcessor
    private var state = State.idle
    /// A request is being processed (its answer is not written yet).
    private var busy = false
    /// The bytes of the place this connection's request holds (0: none).
    private var reserved = 0

    /// Gives back the place the request held.
    private func releasePlace() {
        processor.release(bytes: reserved)
        reserved = 0
    }

    init(processor: WebhookRequestProcessor) {
        self.processor = processor
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): receivedHead(head, context: context)
        case .body(let part): receivedBody(part, context: context)
        case .end: receivedEnd(context: context)
        }
    }

    /// Refuses a declared length over the bound, or a request over the places left; else starts reading.
    private func receivedHead(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let declared = head.headers.first(name: "content-length").flatMap { Int($0) }
        let limit = processor.bodyLimit
        if let declared, declared > limit {
            processor.tooLarge(head: head, bytes: declared, remoteAddress: Self.address(context))
            refuse(context: context, status: .payloadTooLarge, message: "the body is over \(limit) bytes")
        } else if !processor.admit(bytes: declared ?? limit) {
            refuse(context: context, status: .serviceUnavailable, message: "too many webhooks in progress")
        } else {
            reserved = declared ?? limit
            state = .reading(head, context.channel.allocator.buffer(capacity: min(declared ?? 0, limit)))
        }
    }

    /// Keeps a part of the body (refusing a body that grows over the bound), or counts it against the drain's
    /// allowance.
    private func receivedBody(_ part: ByteBuffer, context: ChannelHandlerContext) {
        var part = part
        switch state {
        case .reading(let head, var body):
            if body.readableBytes + part.readableBytes > processor.bodyLimit {
                releasePlace()
                processor.tooLarge(head: head, bytes: nil, remoteAddress: Self.address(context))
                refuse(
                    context: context, status: .payloadTooLarge,
                    message: "the body is over \(processor.bodyLimit) bytes")
            } else {
                state = .idle
                body.writeBuffer(&part)
                state = .reading(head, body)
            }
        case .draining(let allowance):
            let left = allowance - part.readableBytes
            if left < 0 {
                state = .idle
                context.close(promise: nil)
            } else {
                state = .draining(allowance: left)
            }
        case .idle:
            break
        }
    }

    /// Hands a complete request to the processor and writes its answer; ends a drained connection.
    private func receivedEnd(context: ChannelHandlerContext) {
        switch state {
        case .reading(let head, var body):
            state = .idle
            let request = WebhookForwarder.Request(
                method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                body: body.readBytes(length: body.readableBytes) ?? [])
            let keepAlive = head.isKeepAlive
            let remote = Self.address(context)
            let processor = self.processor
            busy = true
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.makeFutureWithTask {
                await processor.process(request, remoteAddress: remote)
            }.whenComplete { result in
                let (handler, context) = bound.value
                handler.releasePlace()
                handler.busy = false
                let answer =
                    (try? result.get()) ?? WebhookRequestProcessor.Answer.json(500, #"{"error":"internal error"}"#)
                handler.write(answer, keepAlive: keepAlive, context: context)
            }
        case .draining:
            state = .idle
            context.close(promise: nil)
        case .idle:
            break
        }
    }

    /// A connection that sent nothing for the idle timeout (``WebhookReceiver``'s `IdleStateHandler`) is closed, so
    /// slow senders cannot hold the places of requests in progress; not while its request is being processed.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        guard !busy else { return }
        if case .reading = state { releasePlace() }
        state = .idle
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .reading = state { releasePlace() }
        state = .idle
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .reading = state { releasePlace() }
        state = .idle
        context.fireChannelInactive()
    }

    private func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, message: String) {
        state = .draining(allowance: 8 << 20)
        let body = JSONValue.object(["error": .string(message)]).jsonString
        write(.json(Int(status.code), body), keepAlive: false, context: context)
    }

    private func write(_ answer: WebhookRequestProcessor.Answer, keepAlive: Bool, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders(answer.headers)
        headers.replaceOrAdd(name: "Content-Length", value: String(answer.body.count))
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive, case .idle = state {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// `host:port` of the peer.
    private static func address(_ context: ChannelHandlerContext) -> String? {
        guard let peer = context.channel.remoteAddress, let ip = peer.ipAddress else { return nil }
        let port = peer.port.map { ":\($0)" } ?? ""
        return ip.contains(":") ? "[\(ip)]\(port)" : "\(ip)\(port)"
    }
}
