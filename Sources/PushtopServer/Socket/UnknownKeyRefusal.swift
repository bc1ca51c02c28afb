import Logging
import NIOCore
import NIOWebSocket
import PusherProtocol

/// A WebSocket on `/app/{key}` whose key no app has: refused on its event loop, as Pusher does (`pusher:error` with
/// 4001, then a close frame with 4001), without reaching any app's hub, console, metrics or webhooks.
///
/// The refusal is counted in ``ServerRefusals`` (`pushtop_refused_total{reason="unknown_key"}`) and logged with the
/// key made printable (``StrangerText/printable(_:)``). The socket ends when the client answers the close, or
/// after the grace period.
final class UnknownKeyRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    static let code = 4001

    private let key: String
    private let closeGrace: TimeAmount
    private var closeTimer: Scheduled<Void>?

    /// Counts the refusal and logs it; the frames are written once the handler is in the pipeline.
    init(key: String, remote: SocketAddress?, refusals: ServerRefusals, closeGrace: TimeAmount, logger: Logger) {
        self.key = key
        self.closeGrace = closeGrace
        refusals.count(.unknownKey)
        logger.info(
            "refused a socket with an unknown app key",
            metadata: [
                "key": "\(StrangerText.printable(key))",
                "remote": "\(remote.map(ConsoleConnectionInfo.describe) ?? "unknown")",
            ])
    }

    /// What the client is told (the key it sent, quoted as an error message may quote it).
    var message: String { "App key \(ErrorText.excerpt(key)) does not exist on this server" }

    func handlerAdded(context: ChannelHandlerContext) {
        let error: JSONValue = ["code": .number(Double(Self.code)), "message": .string(message)]
        let text = PusherMessage(event: PusherEventName.error, data: error).jsonString
        var payload = context.channel.allocator.buffer(capacity: text.utf8.count)
        payload.writeString(text)
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: payload)), promise: nil)
        context.writeAndFlush(
            wrapOutboundOut(WebSocketConnectionHandler.closeFrame(code: Self.code, reason: message)), promise: nil)
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: closeGrace) {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeTimer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Only the client's answer to the close matters; whatever else it sends is dropped unread.
        if unwrapInboundIn(data).opcode == .connectionClose { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeTimer = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        ClosingOnFIN.handle(event, context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
