import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 that drops the WebSocket frames of some opcodes the server sends (its pong frames, its
/// close frames), below any WebSocket library: what a server that never answers a ping or a close looks like.
/// Connections that do not upgrade (the HTTP API) pass untouched.
final class FrameDroppingProxy: Sendable {
    let port: Int
    private let listener: any Channel
    private let group: MultiThreadedEventLoopGroup

    private init(port: Int, listener: any Channel, group: MultiThreadedEventLoopGroup) {
        self.port = port
        self.listener = listener
        self.group = group
    }

    /// Starts a proxy to `127.0.0.1:upstreamPort` that drops the server's frames with an opcode in `drop`
    /// (`0x8` close, `0x9` ping, `0xA` pong); `endAtClose`: the client's TCP connection ends where a dropped close
    /// frame was.
    static func start(upstreamPort: Int, drop: Set<UInt8>, endAtClose: Bool = false) async throws
        -> FrameDroppingProxy
    {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { downstream in
                ClientBootstrap(group: downstream.eventLoop)
                    .channelInitializer { upstream in
                        upstream.pipeline.addHandler(
                            Forward(to: downstream, filter: ServerFrameFilter(drop: drop, endAtClose: endAtClose)))
                    }
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMap { upstream in
                        downstream.pipeline.addHandler(Forward(to: upstream, filter: nil)).map {
                            downstream.setOption(.autoRead, value: true).whenComplete { _ in }
                        }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FrameDroppingProxy(port: listener.localAddress?.port ?? 0, listener: listener, group: group)
    }

    func stop() async {
        try? await listener.close()
        try? await group.shutdownGracefully()
    }
}

/// Writes what one side sends to the other (filtered), and closes the other when one ends.
private final class Forward: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let peer: any Channel
    let filter: ServerFrameFilter?

    init(to peer: any Channel, filter: ServerFrameFilter?) {
        self.peer = peer
        self.filter = filter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        let out = filter.map { $0.pass(bytes) } ?? bytes
        if !out.isEmpty { peer.writeAndFlush(ByteBuffer(bytes: out), promise: nil) }
        if filter?.ended == true {
            peer.close(promise: nil)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// The server's side of one connection: the HTTP upgrade answer as it is, then frame by frame, the dropped opcodes
/// left out. An answer that is not `101` turns the filter off.
private final class ServerFrameFilter: @unchecked Sendable {
    let drop: Set<UInt8>
    let endAtClose: Bool
    /// Whether a dropped close frame ended the connection.
    private(set) var ended = false
    private var pending: [UInt8] = []
    private var upgraded: Bool?

    init(drop: Set<UInt8>, endAtClose: Bool) {
        self.drop = drop
        self.endAtClose = endAtClose
    }

    func pass(_ bytes: [UInt8]) -> [UInt8] {
        if upgraded == false { return bytes }
        pending += bytes
        var out: [UInt8] = []
        if upgraded == nil {
            guard let end = headerEnd() else { return [] }
            let header = Array(pending[..<end])
            upgraded = String(decoding: header.prefix(20), as: UTF8.self).contains(" 101 ")
            out += header
            pending.removeFirst(end)
            if upgraded == false {
                out += pending
                pending = []
                return out
            }
        }
        while !ended, let (length, opcode) = frame() {
            if !drop.contains(opcode) { out += pending[..<length] }
            pending.removeFirst(length)
            if opcode == 0x8, endAtClose, drop.contains(opcode) { ended = true }
        }
        return out
    }

    private func headerEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for i in 0...(pending.count - 4)
        where pending[i] == 13 && pending[i + 1] == 10 && pending[i + 2] == 13 && pending[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    /// The length and opcode of the first whole frame in `pending`.
    private func frame() -> (Int, UInt8)? {
        guard pending.count >= 2 else { return nil }
        let opcode = pending[0] & 0x0F
        let masked = pending[1] & 0x80 != 0
        var length = Int(pending[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard pending.count >= 4 else { return nil }
            length = Int(pending[2]) << 8 | Int(pending[3])
            header = 4
        } else if length == 127 {
            guard pending.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(pending[$1]) }
            header = 10
        }
        let total = header + (masked ? 4 : 0) + length
        return pending.count >= total ? (total, opcode) : nil
    }
}
