import Logging
import NIOCore
import NIOSSL
import NIOWebSocket

import enum PusherProtocol.WebSocketClosePayload

/// One Pusher WebSocket on its event loop: reads frames into messages for the hub, writes the hub's frames,
/// answers pings and runs the close handshake. No task or stream exists per connection.
///
/// - A read burst is handed to the hub in one piece, at `channelReadComplete`.
/// - Every way the socket ends (close handshake, FIN, RST, write failure, shutdown) reaches `channelInactive`,
///   which tells the hub at once, so the connection never lingers as a presence ghost.
/// - When the unsent bytes pass the channel's high-water mark the client is a slow consumer: it is closed with
///   4100 ("over capacity", so it reconnects with back-off) instead of being buffered without bound.
final class WebSocketConnectionHandler: WebSocketEndpoint, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private enum State {
        case open
        /// The server sent its close frame; waiting for the client's (or the grace timer).
        case closing
        case closed
    }

    let id: ConnectionID
    private let inbox: HubInbox
    private let appKey: String
    private let protocolVersion: String?
    /// What the debug feed's `connection` row says of the socket (its TLS is learned from the pipeline).
    private var info: ConsoleConnectionInfo
    /// The code of the client's close frame, for the debug feed's `disconnection` row.
    private var clientCloseCode: Int?
    /// permessage-deflate as agreed in the upgrade; `nil` when the client did not offer it or compression is off.
    private let deflate: PerMessageDeflate?
    private let closeGrace: TimeAmount
    private let logger: Logger
    private var assembler: WebSocketMessageAssembler
    private var received: [WebSocketMessageAssembler.Message] = []
    private var context: ChannelHandlerContext?
    /// The frame encoder's context: the hub's text frames arrive encoded (``EncodedTextFrame``) and are written
    /// from there, past the encoder.
    private var encoderContext: ChannelHandlerContext?
    /// The hub's handle, which keeps the state a hub write needs (see ``SocketOutlet``); `nil` once ended.
    private var outlet: SocketOutlet?
    private var state = State.open
    private var closeTimer: Scheduled<Void>?
    private var announcedEnd = false

    init(
        id: ConnectionID, inbox: HubInbox, appKey: String, protocolVersion: String?, maxMessageBytes: Int,
        deflate: PerMessageDeflate? = nil, closeGrace: TimeAmount, logger: Logger,
        info: ConsoleConnectionInfo = .inProcess
    ) {
        self.info = info
        self.id = id
        self.inbox = inbox
        self.appKey = appKey
        self.protocolVersion = protocolVersion
        self.deflate = deflate
        self.closeGrace = closeGrace
        self.logger = logger
        assembler = WebSocketMessageAssembler(maxMessageBytes: maxMessageBytes, inflates: deflate != nil)
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let operations = context.pipeline.syncOperations
        encoderContext = try? operations.context(handlerType: WebSocketFrameEncoder.self)
        // Below the frame encoder lies the pipeline's head, or TLS: only without TLS may frames skip the pipeline.
        let tls = (try? operations.context(handlerType: NIOSSLHandler.self)) != nil
        info.tls = tls
        let plain = encoderContext != nil && !tls
        let outlet = SocketOutlet(
            handler: self, channelCore: plain ? context.channel._channelCore : nil, eventLoop: context.eventLoop,
            deflate: deflate)
        self.outlet = outlet
        inbox.yield(.opened(id, outlet, appKey: appKey, protocolVersion: protocolVersion, info: info))
        if !context.channel.isActive { ended() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ended()
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended()
        context.fireChannelInactive()
    }

    /// Tells the hub the socket is gone; runs once, whatever ended it.
    private func ended() {
        guard !announcedEnd else { return }
        announcedEnd = true
        state = .closed
        outlet?.detach()
        outlet = nil
        closeTimer?.cancel()
        closeTimer = nil
        handOverReceived()
        inbox.yield(.closed(id, code: clientCloseCode))
        context = nil
        encoderContext = nil
    }

    func socketFailed(_ error: any Error) {
        logger.debug("socket error", metadata: ["connection": "\(id)", "error": "\(error)"])
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard state != .closed else { return }
        let frame = unwrapInboundIn(data)
        if let (code, reason) = WebSocketMessageJoiner.violation(
            of: frame, fromClient: true, compressionAgreed: deflate != nil)
        {
            return fail(code: code, reason: reason)
        }
        switch frame.opcode {
        case .connectionClose:
            guard state == .open else { return context.close(promise: nil) }
            // Answer a valid close with its own code (RFC 6455 section 5.5.1), then end the socket; a close that
            // breaks the protocol (1-byte payload, a code that must not be sent, a reason that is not UTF-8) is
            // answered with 1002 or 1007 instead (section 7.4).
            switch frame.unmaskedData.withUnsafeReadableBytes({ WebSocketClosePayload.check($0) }) {
            case .valid(let code, _):
                clientCloseCode = code ?? 1005
                writeThenClose(Self.closeFrame(code: code ?? 1000, reason: ""))
            case .invalid(let failCode, let why): fail(code: failCode, reason: "The client sent \(why)")
            }
        case .ping:
            if state == .open { writeNow(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)) }
        case .pong:
            break
        default:
            guard state == .open else { return }
            switch assembler.receive(
                opcode: frame.opcode, fin: frame.fin, compressed: frame.rsv1, payload: frame.unmaskedData)
            {
            case .incomplete: break
            case .message(let message): received.append(message)
            case .fail(let code, let reason): fail(code: code, reason: reason)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        handOverReceived()
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    private func handOverReceived() {
        guard !received.isEmpty else { return }
        inbox.yield(.received(id, received))
        received = []
    }

    // MARK: Writing (through the outlet, on this event loop)

    /// Writes a hub frame through the pipeline (with TLS; see ``SocketOutlet/write(_:channelCore:)``), past the
    /// frame encoder when there is one; compressed when `deflate` was agreed and compressing pays.
    func writeThroughPipeline(_ frame: EncodedTextFrame, deflate: PerMessageDeflate?) {
        if let encoderContext {
            encoderContext.write(NIOAny(frame.bytes(for: deflate)), promise: nil)
        } else {
            context?.write(wrapOutboundOut(frame.frame(for: deflate)), promise: nil)
        }
    }

    /// Flushes the hub's frames written by ``writeThroughPipeline(_:)``.
    func flushThroughPipeline() {
        // From the encoder's context when there is one: the encoder holds nothing back, so the flush may skip it.
        (encoderContext ?? context)?.flush()
    }

    private func flushIfNeeded() {
        outlet?.flushIfNeeded()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable, state == .open {
            let pending = (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
            inbox.yield(.overCapacity(id, pendingBytes: pending))
            close(code: 4100, reason: "Over capacity: the connection fell too far behind")
        }
        context.fireChannelWritabilityChanged()
    }

    /// Sends a close frame; the socket is dropped when the client answers, or after the grace period.
    func close(code: Int, reason: String) {
        guard state == .open, let context else { return }
        writeNow(Self.closeFrame(code: code, reason: reason))
        state = .closing
        outlet?.stopText()
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: closeGrace) {
            context.close(promise: nil)
        }
    }

    /// Fails the connection (RFC 6455 section 7.1.7): a close frame with the code, then the socket ends.
    func fail(code: Int, reason: String) {
        guard state != .closed, let context else { return }
        logger.debug(
            "closing a connection that broke the WebSocket protocol",
            metadata: [
                "connection": "\(id)", "code": "\(code)", "reason": "\(reason)",
            ])
        handOverReceived()
        if state == .open {
            writeThenClose(Self.closeFrame(code: code, reason: reason))
        } else {
            context.close(promise: nil)
        }
    }

    /// Sends a last frame, then ends the socket once it is written.
    private func writeThenClose(_ frame: WebSocketFrame) {
        guard let context else { return }
        state = .closing
        outlet?.stopText()
        outlet?.didFlush()
        context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func writeNow(_ frame: WebSocketFrame) {
        guard let context else { return }
        outlet?.didFlush()
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    /// A close frame: the code, then as much of the reason as fits a control frame (123 bytes of UTF-8).
    static func closeFrame(code: Int, reason: String) -> WebSocketFrame {
        WebSocketFrame(
            fin: true, opcode: .connectionClose,
            data: ByteBuffer(bytes: WebSocketClosePayload.encoded(code: code, reason: reason)))
    }
}
