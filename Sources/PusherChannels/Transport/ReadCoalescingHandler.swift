import NIOCore

/// Paces the socket reads of a busy connection so that one wake-up reads many frames.
///
/// NIO asks for the next read as soon as a read burst has been handled, so a stream of small frames wakes the event
/// loop once per frame. This handler, first in the pipeline, holds that request back until `interval` after the
/// previous one; meanwhile the socket is not watched and the kernel gathers what arrives. At 5,000 frames/s and
/// 5 ms, one read carries about 25 frames instead of one. A quiet connection (nothing within `interval` of the
/// previous read) reads at once, so a lone event is never delayed; on a busy one an event waits at most `interval`.
///
/// For consumers that draw on a clock anyway (the dashboard), not for `watch`, whose latency is the point.
final class ReadCoalescingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    private let interval: TimeAmount
    private var lastRead = NIODeadline.distantPast
    private var pending: Scheduled<Void>?

    /// - Parameter interval: the shortest time between two reads of the socket.
    init(interval: TimeAmount) {
        self.interval = interval
    }

    func read(context: ChannelHandlerContext) {
        guard pending == nil else { return }
        let now = NIODeadline.now()
        let due = lastRead + interval
        guard now < due else {
            lastRead = now
            context.read()
            return
        }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        pending = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in
            pending = nil
            lastRead = .now()
            loopBound.value.read()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelPending()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelPending()
    }

    private func cancelPending() {
        pending?.cancel()
        pending = nil
    }
}
