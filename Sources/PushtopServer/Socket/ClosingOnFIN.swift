import NIOCore

/// A WebSocket whose peer sent a FIN without a close frame can read nothing more, so nobody will answer a close
/// handshake: the socket closes. One rule for `serve`'s handlers and the proxy's relay ends.
package enum ClosingOnFIN {
    /// Closes the channel when `event` is the end of its input (a FIN); passes any other event on.
    package static func handle(_ event: Any, context: ChannelHandlerContext) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
