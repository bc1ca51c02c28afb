import Logging
import NIOCore
import NIOHTTP1

/// Closes an HTTP connection that is too slow or idle: headers not complete within the request timeout, a body
/// not complete within it after the headers, or no new request within the idle timeout after the last one.
///
/// Slow-header clients (slowloris) then cannot hold sockets open. Removed when the socket becomes a WebSocket,
/// whose liveness the hub's ping sweep owns.
final class HTTPRequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let requestTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let logger: Logger
    private var deadline: Scheduled<Void>?
    /// Between a request's head and its end.
    private var inRequest = false
    /// The request is the debug feed's (`GET /apps/{id}/console`): its answer streams as long as the reader reads,
    /// so no idle deadline follows it.
    private var streaming = false

    init(requestTimeout: TimeAmount, idleTimeout: TimeAmount, logger: Logger) {
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(requestTimeout, why: "request headers not received in time", context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            inRequest = true
            streaming = head.method == .GET && head.uri.prefix { $0 != "?" }.hasSuffix("/console")
            arm(requestTimeout, why: "request body not received in time", context: context)
        case .body: break
        case .end:
            inRequest = false
            if streaming {
                deadline?.cancel()
                deadline = nil
            } else {
                arm(idleTimeout, why: "idle connection", context: context)
            }
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server is stopping: a connection with no request under way has nothing left to do.
        if event is ChannelShouldQuiesceEvent, !inRequest {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func arm(_ timeout: TimeAmount, why: String, context: ChannelHandlerContext) {
        deadline?.cancel()
        let logger = logger
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            logger.debug("closing an HTTP connection", metadata: ["reason": "\(why)"])
            context.close(promise: nil)
        }
    }
}
