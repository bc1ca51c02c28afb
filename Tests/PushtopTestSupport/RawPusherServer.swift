import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A WebSocket server on 127.0.0.1 that plays a fixed script on every connection, frame by frame, down to how the
/// TCP connection ends: what a Pusher-protocol server written elsewhere may do that a Hummingbird-based scripted
/// server cannot (send `pusher:error` and drop the connection without a close frame, never answer, reset).
///
/// The script is chosen by the request's path and query (``Script``), so one server can answer a refused key
/// differently from a good one.
public final class RawPusherServer: Sendable {
    /// One step of a connection's script.
    public enum Step: Sendable, Hashable {
        /// A text frame.
        case text(String)
        /// A close frame with this code (then the server waits for the client's reply and ends the connection).
        case close(Int)
        /// End the TCP connection at once, without a close frame.
        case drop
        /// Wait this many seconds.
        case pause(Double)
        /// Answer `pusher:ping` with `pusher:pong` from here on and otherwise stay open (the last step).
        case serve
    }

    /// The steps for a request target (path and query).
    public typealias Script = @Sendable (String) -> [Step]

    private let listener: any Channel
    /// The request targets of every upgrade, in order.
    public let targets = Mutex<[String]>([])
    public let port: Int

    private init(listener: any Channel) {
        self.listener = listener
        self.port = listener.localAddress?.port ?? 0
    }

    /// A `pusher:error` frame with `code`.
    public static func refusal(_ code: Int, message: String = "refused") -> String {
        #"{"event":"pusher:error","data":{"code":\#(code),"message":"\#(message)"}}"#
    }

    /// A `pusher:connection_established` with `socketID`.
    public static func established(_ socketID: String = "1.1", activityTimeout: Int = 120) -> String {
        #"{"event":"pusher:connection_established","data":"{\"socket_id\":\"\#(socketID)\",\"activity_timeout\":\#(activityTimeout)}"}"#
    }

    public static func start(_ script: @escaping Script) async throws -> RawPusherServer {
        let box = TargetsBox()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: 1 << 20, automaticErrorHandling: false,
                        shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                        upgradePipelineHandler: { channel, head in
                            box.record(head.uri)
                            return channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(ScriptHandler(steps: script(head.uri)))
                            }
                        })
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = RawPusherServer(listener: listener)
        box.server = server
        return server
    }

    public func stop() {
        listener.close(promise: nil)
    }
}

private final class TargetsBox: @unchecked Sendable {
    // Set once, before the first connection can arrive.
    var server: RawPusherServer?
    func record(_ target: String) { server?.targets.withLock { $0.append(target) } }
}

/// Plays the steps on one upgraded connection.
private final class ScriptHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var steps: [RawPusherServer.Step]
    private var serving = false
    private var closing = false

    init(steps: [RawPusherServer.Step]) {
        self.steps = steps
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { next(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        next(context)
        context.fireChannelActive()
    }

    private func next(_ context: ChannelHandlerContext) {
        while !steps.isEmpty {
            let step = steps.removeFirst()
            switch step {
            case .text(let text):
                let frame = WebSocketFrame(
                    fin: true, opcode: .text, data: context.channel.allocator.buffer(string: text))
                context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
            case .close(let code):
                var buffer = context.channel.allocator.buffer(capacity: 2)
                buffer.writeInteger(UInt16(code))
                closing = true
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: buffer)), promise: nil)
                let channel = context.channel
                channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
                return
            case .drop:
                context.close(promise: nil)
                return
            case .pause(let seconds):
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
                    let (handler, context) = loopBound.value
                    handler.next(context)
                }
                return
            case .serve:
                serving = true
                return
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .connectionClose:
            if !closing {
                closing = true
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)),
                    promise: nil)
            }
            context.close(promise: nil)
        case .ping:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .text where serving:
            var data = frame.unmaskedData
            let text = data.readString(length: data.readableBytes) ?? ""
            if text.contains("\"pusher:ping\"") {
                let pong = WebSocketFrame(
                    fin: true, opcode: .text,
                    data: context.channel.allocator.buffer(string: #"{"event":"pusher:pong","data":"{}"}"#))
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            }
        default: break
        }
    }
}
