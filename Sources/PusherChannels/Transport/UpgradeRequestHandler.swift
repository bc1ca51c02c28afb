import NIOCore
import NIOHTTP1

/// Sends the WebSocket upgrade request once the connection (and TLS) is up, and reports a refused upgrade.
///
/// NIO's `NIOHTTPClientUpgradeHandler` adds the upgrade headers to this request and swaps the HTTP handlers for
/// the WebSocket ones when the server answers 101; any other answer reaches this handler as a response.
final class UpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let host: String
    private let target: String
    private let outcome: ConnectionOutcome

    init(host: String, target: String, outcome: ConnectionOutcome) {
        self.host = host
        self.target = target
        self.outcome = outcome
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: "Sec-WebSocket-Extensions", value: MessageInflater.offer)
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let response) = unwrapInboundIn(data) {
            outcome.fail(
                "the server refused the WebSocket upgrade: HTTP \(response.status.code) \(response.status.reasonPhrase)"
            )
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        outcome.fail(WebSocketTransport.describe(error))
        context.close(promise: nil)
    }
}
