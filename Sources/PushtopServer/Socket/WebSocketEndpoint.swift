import NIOCore
import NIOWebSocket

/// The handler at the end of a WebSocket pipeline that owns its socket: `serve`'s connection handler and the
/// proxy's two relay ends. One rule for how their sockets end on a FIN or an error:
///
/// - a FIN without a close frame closes the socket (``ClosingOnFIN``);
/// - frames NIO's decoder refused fail the peer with the rule's code and reason (``NIOWebSocketError/closing``);
/// - any other error is the endpoint's to note, then the socket closes.
package protocol WebSocketEndpoint: ChannelInboundHandler {
    /// Fails the peer (RFC 6455 section 7.1.7): a close frame with `code` and `reason`, then the socket ends.
    func fail(code: Int, reason: String)
    /// An error other than a refused frame, just before the socket closes.
    func socketFailed(_ error: any Error)
}

extension WebSocketEndpoint {
    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        ClosingOnFIN.handle(event, context: context)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError {
            let (code, reason) = error.closing
            fail(code: code, reason: reason)
            return
        }
        socketFailed(error)
        context.close(promise: nil)
    }
}
