import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A WebSocket server on 127.0.0.1 whose whole answer to an upgrade leaves in ONE write: the `101`, the frames of
/// its script, and then, at once, the end of the TCP connection.
///
/// What a server written elsewhere does when it refuses a connection on the spot (`pusher:error` 4001 and a FIN, or
/// a close frame right after the `101`): the client reads the end of its handshake, the refusal and the end of the
/// connection together, often in one read. NIO's server upgrader writes the `101` (and computes its
/// `Sec-WebSocket-Accept`); ``OneWriteGate``, first in the pipeline, holds every byte until the script is written
/// and then sends them as one buffer with one flush.
public final class OneWriteUpgradeServer: Sendable {
    /// A frame of the script.
    public enum Frame: Sendable, Hashable {
        /// A text frame.
        case text(String)
        /// A close frame with a code and a reason.
        case close(code: Int, reason: String)
    }

    private let listener: any Channel
    private let counter: UpgradeCounter
    public let port: Int

    private init(listener: any Channel, counter: UpgradeCounter) {
        self.listener = listener
        self.counter = counter
        self.port = listener.localAddress?.port ?? 0
    }

    /// How many upgrades the server answered (a client that retries shows here).
    public var upgrades: Int { counter.count.load(ordering: .relaxed) }

    /// A `pusher:error` text frame with `code` and `message`.
    public static func refusal(_ code: Int, message: String) -> Frame {
        .text(#"{"event":"pusher:error","data":{"code":\#(code),"message":"\#(message)"}}"#)
    }

    /// Starts a server that answers every upgrade with the `101` and `frames` in one write; with `thenClose` the
    /// TCP connection ends right after that write (no close handshake is waited for).
    public static func start(_ frames: [Frame], thenClose: Bool = true) async throws -> OneWriteUpgradeServer {
        let counter = UpgradeCounter()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(OneWriteGate())
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: 1 << 20, automaticErrorHandling: false,
                        shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                        upgradePipelineHandler: { channel, _ in
                            counter.count.wrappingAdd(1, ordering: .relaxed)
                            return channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    OneWriteScript(frames: frames, thenClose: thenClose))
                            }
                        })
                    try sync.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return OneWriteUpgradeServer(listener: listener, counter: counter)
    }

    public func stop() {
        listener.close(promise: nil)
    }
}

private final class UpgradeCounter: Sendable {
    let count = Atomic<Int>(0)
}

/// Holds every outbound byte (the `101`, the frames) until ``release(thenClose:)``, which writes them as one buffer
/// with one flush. Writes are reported done at once, so that the upgrader, which waits for its `101` to be written
/// before it puts the WebSocket handlers in place, goes on.
private final class OneWriteGate: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = ByteBuffer

    private var held: ByteBuffer?
    private var released = false
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// A context holds its handler: without this, gate and context kept each other (and the pipeline) alive.
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !released else { return context.write(data, promise: promise) }
        guard case .byteBuffer(var bytes) = unwrapOutboundIn(data) else {
            promise?.fail(ChannelError.operationUnsupported)
            return
        }
        if held == nil { held = context.channel.allocator.buffer(capacity: 512) }
        held!.writeBuffer(&bytes)
        promise?.succeed(())
    }

    func flush(context: ChannelHandlerContext) {
        if released { context.flush() }
    }

    /// Sends what was held in one write, then ends the connection when asked.
    func release(thenClose: Bool) {
        guard let context, !released else { return }
        released = true
        if let held { context.writeAndFlush(wrapOutboundOut(held), promise: nil) }
        held = nil
        if thenClose { context.close(promise: nil) }
    }
}

/// Writes the script's frames once the connection is upgraded, then opens the gate.
private final class OneWriteScript: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let frames: [OneWriteUpgradeServer.Frame]
    private let thenClose: Bool

    init(frames: [OneWriteUpgradeServer.Frame], thenClose: Bool) {
        self.frames = frames
        self.thenClose = thenClose
    }

    func handlerAdded(context: ChannelHandlerContext) {
        for frame in frames {
            switch frame {
            case .text(let text):
                let data = context.channel.allocator.buffer(string: text)
                context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: data)), promise: nil)
            case .close(let code, let reason):
                var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
                data.writeInteger(UInt16(code))
                data.writeString(reason)
                context.write(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
            }
        }
        let gate = try? context.pipeline.syncOperations.handler(type: OneWriteGate.self)
        gate?.release(thenClose: thenClose)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Without `thenClose`: the client's close reply ends the connection.
        if unwrapInboundIn(data).opcode == .connectionClose { context.close(promise: nil) }
    }
}

/// A server on 127.0.0.1 that answers every request, once its head has arrived, with fixed bytes (a broken `101`,
/// say), and leaves the connection open.
public final class RawHTTPAnswer: Sendable {
    private let listener: any Channel
    public let port: Int

    private init(listener: any Channel) {
        self.listener = listener
        self.port = listener.localAddress?.port ?? 0
    }

    public static func start(_ answer: String) async throws -> RawHTTPAnswer {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FixedAnswer(answer: answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return RawHTTPAnswer(listener: listener)
    }

    public func stop() {
        listener.close(promise: nil)
    }
}

private final class FixedAnswer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: String
    private var request = ""
    private var answered = false

    init(answer: String) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        request += String(buffer: unwrapInboundIn(data))
        guard request.contains("\r\n\r\n") else { return }
        answered = true
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: answer)), promise: nil)
    }
}
