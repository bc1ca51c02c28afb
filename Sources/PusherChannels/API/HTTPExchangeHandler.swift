import NIOCore
import NIOHTTP1

/// Sends an ``HTTPExchange``'s request once the connection is up (NIOSSL holds it until the handshake is done)
/// and collects the answer up to the body limit.
final class HTTPExchangeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let head: HTTPRequestHead
    private let body: [UInt8]?
    private let bodyLimit: Int
    private let outcome: HTTPExchangeOutcome
    private var status: Int?
    private var received: [UInt8] = []

    init(head: HTTPRequestHead, body: [UInt8]?, bodyLimit: Int, outcome: HTTPExchangeOutcome) {
        self.head = head
        self.body = body
        self.bodyLimit = bodyLimit
        self.outcome = outcome
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body, !body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let response):
            // 1xx answers (100 Continue) are interim: the real one follows.
            if response.status.code >= 200 { status = Int(response.status.code) }
        case .body(let buffer):
            guard received.count + buffer.readableBytes <= bodyLimit else {
                outcome.fail(.bodyTooLarge(limit: bodyLimit))
                return
            }
            received.append(contentsOf: buffer.readableBytesView)
        case .end:
            if let status { outcome.succeed(HTTPExchangeResponse(status: status, body: received)) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        outcome.fail(.unreachable("the connection closed before the answer was complete"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        outcome.fail(.unreachable(HTTPExchange.describe(error)))
        context.close(promise: nil)
    }
}
