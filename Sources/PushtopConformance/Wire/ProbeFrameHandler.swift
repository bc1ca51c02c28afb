import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Sends the upgrade request once the connection is up, and turns a refused upgrade into ``ProbeError/refused``.
final class ProbeUpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let host: String
    private let target: String
    private let headers: [(String, String)]
    private let upgraded: EventLoopPromise<Void>

    init(host: String, target: String, headers: [(String, String)], upgraded: EventLoopPromise<Void>) {
        self.host = host
        self.target = target
        self.headers = headers
        self.upgraded = upgraded
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        for (name, value) in self.headers { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let response) = unwrapInboundIn(data) {
            upgraded.fail(ProbeError.refused(status: Int(response.status.code), reason: response.status.reasonPhrase))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        upgraded.fail(ProbeError.unreachable(ProbeSocket.describe(error)))
        context.close(promise: nil)
    }
}

/// Reassembles frames after the upgrade and reports each to the socket; answers pings.
final class ProbeFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame

    private let box: SocketBox
    private var fragments: [UInt8] = []
    private var fragmentOpcode: WebSocketOpcode?

    init(box: SocketBox) {
        self.box = box
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        var payload = frame.unmaskedData
        var bytes = payload.readBytes(length: payload.readableBytes) ?? []
        var opcode = frame.opcode
        if opcode == .continuation {
            fragments += bytes
            guard frame.fin, let first = fragmentOpcode else { return }
            bytes = fragments
            opcode = first
            fragments = []
            fragmentOpcode = nil
        } else if !frame.fin, opcode == .text || opcode == .binary {
            fragments = bytes
            fragmentOpcode = opcode
            return
        }
        switch opcode {
        case .text: box.receive(.text(String(decoding: bytes, as: UTF8.self)))
        case .binary: box.receive(.binary(bytes.count))
        case .ping: box.ping(bytes)
        case .pong: box.receive(.pong)
        case .connectionClose:
            let code = bytes.count >= 2 ? Int(bytes[0]) << 8 | Int(bytes[1]) : nil
            let reason = bytes.count > 2 ? String(decoding: bytes[2...], as: UTF8.self) : ""
            box.receive(.close(code: code, reason: reason))
        default: break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        box.receive(.ended("TCP connection closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        box.receive(.ended("\(error)"))
        context.close(promise: nil)
    }
}
