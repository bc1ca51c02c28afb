import NIOCore
import NIOWebSocket

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
