import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 for tests: forwards each connection to a plain or a TLS port (by the first byte: a TLS
/// handshake starts with 0x16), and watches what the client sends on plain connections: whether a WebSocket close
/// frame arrived before the client ended the TCP connection.
///
/// With both ports it lets one `host:port` answer `ws://` and `wss://`, as a Pusher host does (close code 4000
/// tells a client to come back with TLS on the same port).
public final class WireProbeProxy: Sendable {
    /// What one proxied connection showed.
    public struct Record: Sendable {
        /// Routed to the TLS port.
        public var usedTLS = false
        /// The client sent a complete WebSocket close frame (plain connections only).
        public var closeFrameFromClient = false
        /// The status code of the client's close frame (1005 when it carried none).
        public var closeCodeFromClient: Int?
        /// The client's close frame arrived before its side of the TCP connection ended.
        public var closeBeforeEnd = false
        /// The client ended the TCP connection.
        public var clientEnded = false
        /// The `Sec-WebSocket-Extensions` of the server's upgrade response (plain connections only).
        public var serverExtensions: String?
        /// Data frames (text, binary, continuation) the server sent, and those of them with RSV1 set (a message
        /// compressed with permessage-deflate). Plain connections only.
        public var serverDataFrames = 0
        public var serverCompressedFrames = 0
    }

    let records = Mutex<[Record]>([])
    private let listener: any Channel
    public let port: Int

    private init(listener: any Channel) {
        self.listener = listener
        self.port = listener.localAddress?.port ?? 0
    }

    /// Connections in the order they arrived.
    public var connections: [Record] { records.withLock { $0 } }

    public static func start(plainPort: Int, tlsPort: Int? = nil) async throws -> WireProbeProxy {
        let box = ProxyBox()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let proxy = box.proxy else { throw ChannelError.ioOnClosedChannel }
                    let index = proxy.records.withLock { r in
                        r.append(Record())
                        return r.count - 1
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        ClientSideHandler(proxy: proxy, index: index, plainPort: plainPort, tlsPort: tlsPort))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = WireProbeProxy(listener: listener)
        box.proxy = proxy
        return proxy
    }

    public func stop() {
        listener.close(promise: nil)
    }

    func update(_ index: Int, _ change: (inout Record) -> Void) {
        records.withLock { change(&$0[index]) }
    }
}

private final class ProxyBox: @unchecked Sendable {
    // Set once, before the first connection can arrive.
    var proxy: WireProbeProxy?
}

/// The accepted side: routes on the first byte, forwards both ways, scans the client's WebSocket frames.
private final class ClientSideHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let proxy: WireProbeProxy
    private let index: Int
    private let plainPort: Int
    private let tlsPort: Int?
    private var server: (any Channel)?
    private var pending: [ByteBuffer] = []
    private var connecting = false
    private var scanner: CloseFrameScanner?

    init(proxy: WireProbeProxy, index: Int, plainPort: Int, tlsPort: Int?) {
        self.proxy = proxy
        self.index = index
        self.plainPort = plainPort
        self.tlsPort = tlsPort
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if !connecting {
            connecting = true
            let tls = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) == 0x16 && tlsPort != nil
            if tls { proxy.update(index) { $0.usedTLS = true } } else { scanner = CloseFrameScanner() }
            connect(context, port: tls ? tlsPort! : plainPort)
        }
        if var scanner, !scanner.sawClose {
            scanner.scan(buffer)
            self.scanner = scanner
            if scanner.sawClose {
                let code = scanner.closeCode
                proxy.update(index) {
                    $0.closeFrameFromClient = true; $0.closeBeforeEnd = true; $0.closeCodeFromClient = code
                }
            }
        }
        if let server {
            server.writeAndFlush(buffer, promise: nil)
        } else {
            pending.append(buffer)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            clientEnded(context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        clientEnded(context)
        server?.close(promise: nil)
    }

    private func clientEnded(_ context: ChannelHandlerContext) {
        proxy.update(index) { $0.clientEnded = true }
        if let server { server.close(mode: .output, promise: nil) } else { context.close(promise: nil) }
    }

    private func connect(_ context: ChannelHandlerContext, port: Int) {
        let client = context.channel
        let (proxy, index, scans) = (self.proxy, self.index, scanner != nil)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ServerSideHandler(client: client, proxy: proxy, index: index, scans: scans))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .whenComplete { result in
                let handler = loopBound.value
                switch result {
                case .success(let server):
                    handler.server = server
                    for buffer in handler.pending { server.write(buffer, promise: nil) }
                    handler.pending = []
                    server.flush()
                case .failure:
                    client.close(promise: nil)
                }
            }
    }
}

/// The side towards the server: forwards to the client, ends it when the server ends; on plain connections, notes
/// the server's extensions and counts its data frames.
private final class ServerSideHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let client: any Channel
    private let proxy: WireProbeProxy
    private let index: Int
    private var scanner: ServerFrameScanner?

    init(client: any Channel, proxy: WireProbeProxy, index: Int, scans: Bool) {
        self.client = client
        self.proxy = proxy
        self.index = index
        scanner = scans ? ServerFrameScanner() : nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if var scanner {
            scanner.scan(buffer)
            self.scanner = scanner
            let (extensions, frames, compressed) = (scanner.extensions, scanner.dataFrames, scanner.compressedFrames)
            proxy.update(index) {
                $0.serverExtensions = extensions
                $0.serverDataFrames = frames
                $0.serverCompressedFrames = compressed
            }
        }
        client.writeAndFlush(buffer, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Half-close: what was forwarded still reaches the client (a full close could reset it away).
        client.close(mode: .output, promise: nil)
    }
}

/// Walks a client's byte stream: skips the HTTP upgrade request, then its frames, and notes the first complete close
/// frame.
private struct CloseFrameScanner {
    private var wire = WebSocketWireReader()
    private(set) var sawClose = false
    /// The status code of that close frame (1005 when it carried none).
    private(set) var closeCode: Int?

    mutating func scan(_ buffer: ByteBuffer) {
        wire.feed(buffer)
        _ = wire.nextHead()
        while !sawClose, let frame = wire.nextFrame() {
            if let code = frame.closeCode {
                sawClose = true
                closeCode = code
            }
        }
    }
}

/// Walks a server's byte stream: the upgrade response's `Sec-WebSocket-Extensions`, then its frames.
private struct ServerFrameScanner {
    private var wire = WebSocketWireReader()
    private(set) var extensions: String?
    private(set) var dataFrames = 0
    private(set) var compressedFrames = 0

    mutating func scan(_ buffer: ByteBuffer) {
        wire.feed(buffer)
        if let head = wire.nextHead() {
            for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "sec-websocket-extensions" {
                    extensions = String(parts[1].drop { $0 == " " })
                }
            }
        }
        while let frame = wire.nextFrame() {
            guard frame.opcode < 0x8 else { continue }
            dataFrames += 1
            if frame.rsv1 { compressedFrames += 1 }
        }
    }
}
