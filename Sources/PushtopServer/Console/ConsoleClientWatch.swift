import NIOCore

/// Tells the console feed when the client of an HTTP connection is gone: its input closed (FIN) or the connection
/// ended (RST, a failed write, the server's close), whichever comes first.
///
/// Hummingbird tells a response body's writer nothing when its client goes away: the connection allows half-closure,
/// so a FIN only ends the request stream, and the writer learns of it when a write fails, at the next row or
/// keep-alive. A feed waiting for rows would keep its listener (and, in a cluster, the other nodes forwarding) that
/// long. This handler, first in each plain HTTP connection's pipeline, registers the connection with
/// ``ConsolePeer`` from its start until its client is gone, so that a feed ends as soon as its client does, even
/// one that left before its request reached the router.
final class ConsoleClientWatch: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    private let gone: EventLoopPromise<Void>
    private let token: String

    init(channel: any Channel) {
        gone = channel.eventLoop.makePromise()
        token = ConsolePeer.register(channel, gone: gone.futureResult)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        gone.succeed()
    }

    func channelInactive(context: ChannelHandlerContext) {
        gone.succeed()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { gone.succeed() }
        context.fireUserInboundEventTriggered(event)
    }
}
