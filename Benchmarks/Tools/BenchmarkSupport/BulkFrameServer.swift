import Crypto
import Foundation
import NIOCore
import NIOPosix

/// A minimal WebSocket server for benchmarks: after the handshake it sends `connection_established`, then
/// `count` pre-encoded copies of one Pusher event frame, written in large chunks, so that the generator is
/// never the bottleneck. Not a Pusher server: it ignores whatever the client sends.
public final class BulkFrameServer: Sendable {
    /// The loopback port it listens on.
    public let port: Int
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    /// Listens on an ephemeral loopback port; every connection gets `count` copies of `frame`.
    public static func start(frame: String, count: Int) async throws -> BulkFrameServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BulkHandler(frame: frame, count: count))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return BulkFrameServer(channel: channel)
    }

    /// Stops listening.
    public func stop() async {
        try? await channel.close()
    }

    /// Appends `text` as one unmasked WebSocket text frame.
    public static func encodeTextFrame(_ text: String, into buffer: inout ByteBuffer) {
        let payload = Array(text.utf8)
        buffer.writeInteger(UInt8(0x81))
        if payload.count < 126 {
            buffer.writeInteger(UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(payload.count))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(payload.count))
        }
        buffer.writeBytes(payload)
    }
}

private final class BulkHandler: ChannelInboundHandler, @unchecked Sendable {
    // Used only on its channel's event loop.
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let frame: String
    let count: Int
    var request = ""
    var upgraded = false
    var sent = 0
    var chunk: ByteBuffer?
    var framesPerChunk = 0

    init(frame: String, count: Int) {
        self.frame = frame
        self.count = count
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !upgraded else { return }
        var buffer = unwrapInboundIn(data)
        request += buffer.readString(length: buffer.readableBytes) ?? ""
        guard request.contains("\r\n\r\n") else { return }
        upgraded = true
        let key =
            request.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)))
            .base64EncodedString()
        var out = context.channel.allocator.buffer(capacity: 256)
        out.writeString(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
        )
        BulkFrameServer.encodeTextFrame(
            #"{"event":"pusher:connection_established","data":"{\"socket_id\":\"1.1\",\"activity_timeout\":120}"}"#,
            into: &out)
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
        var one = context.channel.allocator.buffer(capacity: frame.utf8.count + 10)
        BulkFrameServer.encodeTextFrame(frame, into: &one)
        framesPerChunk = max(1, (256 * 1024) / one.readableBytes)
        var chunk = context.channel.allocator.buffer(capacity: one.readableBytes * framesPerChunk)
        for _ in 0..<framesPerChunk { chunk.writeImmutableBuffer(one) }
        self.chunk = chunk
        writeMore(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { writeMore(context: context) }
        context.fireChannelWritabilityChanged()
    }

    private func writeMore(context: ChannelHandlerContext) {
        guard let chunk else { return }
        while sent < count && context.channel.isWritable {
            let n = min(framesPerChunk, count - sent)
            if n == framesPerChunk {
                context.write(wrapOutboundOut(chunk), promise: nil)
            } else {
                let size = chunk.readableBytes / framesPerChunk * n
                context.write(wrapOutboundOut(chunk.getSlice(at: chunk.readerIndex, length: size)!), promise: nil)
            }
            sent += n
            context.flush()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
