import NIOCore
import NIOEmbedded
import Testing

@testable import PushtopServer

/// The HTTP API's answers of a turn leave together once the loop has run its reads: nothing before, everything
/// after, each connection's in the order written. (The API's answers over real sockets, pipelined and not, are
/// `HTTPAPIOrderTests`' and `HTTPAdversaryTests`'.)
@Suite struct TurnFlushTests {
    final class Outlet: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
    }

    static func context(_ channel: EmbeddedChannel) throws -> ChannelHandlerContext {
        try channel.pipeline.syncOperations.context(handlerType: Outlet.self)
    }

    @Test func answersWrittenInATurnLeaveAtItsEnd() throws {
        let loop = EmbeddedEventLoop()
        let first = EmbeddedChannel(handler: Outlet(), loop: loop)
        let second = EmbeddedChannel(handler: Outlet(), loop: loop)
        let loops = TurnFlush.Loops()
        let flush = loops.on(loop)
        #expect(loops.on(loop) === flush, "one flush per loop")

        for (channel, text) in [(first, "a1"), (second, "b1"), (first, "a2")] {
            let context = try Self.context(channel)
            context.write(NIOAny(ByteBuffer(string: text)), promise: nil)
            flush.flushAtTurnEnd(context)
        }
        #expect(try first.readOutbound(as: ByteBuffer.self) == nil, "nothing leaves during the turn")
        #expect(try second.readOutbound(as: ByteBuffer.self) == nil)

        loop.run()  // the turn's tasks
        #expect(try first.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "a1"))
        #expect(try first.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "a2"))
        #expect(try second.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "b1"))

        // The next turn has a flush of its own.
        let context = try Self.context(second)
        context.write(NIOAny(ByteBuffer(string: "b2")), promise: nil)
        flush.flushAtTurnEnd(context)
        #expect(try second.readOutbound(as: ByteBuffer.self) == nil)
        loop.run()
        #expect(try second.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "b2"))
        _ = try first.finish()
        _ = try second.finish()
    }

    @Test func aConnectionClosedBeforeTheTurnEndsIsSkipped() throws {
        let loop = EmbeddedEventLoop()
        let closing = EmbeddedChannel(handler: Outlet(), loop: loop)
        let staying = EmbeddedChannel(handler: Outlet(), loop: loop)
        let flush = TurnFlush.Loops().on(loop)
        for channel in [closing, staying] {
            let context = try Self.context(channel)
            context.write(NIOAny(ByteBuffer(string: "answer")), promise: nil)
            flush.flushAtTurnEnd(context)
        }
        _ = try closing.finish()
        loop.run()
        #expect(try staying.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "answer"))
        _ = try staying.finish()
    }
}
