import Foundation
import NIOCore
import NIOWebSocket

/// The WebSocket handshake, by hand: sends the upgrade request once the connection is up, reads the response head,
/// and on a 101 puts the frame decoder, encoder and ``ProbeFrameHandler`` behind itself and hands them the bytes
/// that came after the head, in the same turn of the event loop. So nothing the server sends right after its 101
/// is lost, even when the server ends the connection at once (a refusal without a close frame). Another status is
/// ``ProbeError/refused``.
final class ProbeHandshake: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let host: String
    private let target: String
    private let headers: [(String, String)]
    private let upgraded: EventLoopPromise<Void>
    private let box: SocketBox
    private var head: [UInt8] = []
    private var done = false

    init(host: String, target: String, headers: [(String, String)], box: SocketBox, upgraded: EventLoopPromise<Void>) {
        self.host = host
        self.target = target
        self.headers = headers
        self.box = box
        self.upgraded = upgraded
    }

    func channelActive(context: ChannelHandlerContext) {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return context.fireChannelRead(data) }
        var buffer = unwrapInboundIn(data)
        head += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard let end = Self.endOfHead(head) else {
            if head.count > 64 << 10 { fail(context, .unreachable("an upgrade response head over 64 KB")) }
            return
        }
        done = true
        let text = String(decoding: head[..<end], as: UTF8.self)
        let rest = Array(head[(end + 4)...])
        head = []
        let statusLine = text.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return fail(context, .unreachable("not an HTTP response: \(statusLine.prefix(80))"))
        }
        guard status == 101 else {
            return fail(context, .refused(status: status, reason: parts.count > 2 ? String(parts[2]) : ""))
        }
        do {
            let pipeline = context.pipeline.syncOperations
            try pipeline.addHandler(WebSocketFrameEncoder())
            try pipeline.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 16 << 20)))
            try pipeline.addHandler(ProbeFrameHandler(box: box))
        } catch {
            return fail(context, .unreachable("\(error)"))
        }
        upgraded.succeed(())
        if !rest.isEmpty {
            context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: rest)))
            context.fireChannelReadComplete()
        }
    }

    private func fail(_ context: ChannelHandlerContext, _ error: ProbeError) {
        done = true
        upgraded.fail(error)
        context.close(promise: nil)
    }

    /// The index of the `\r\n\r\n` that ends the response head.
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !done else { return context.fireErrorCaught(error) }
        fail(context, .unreachable(ProbeSocket.describe(error)))
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
