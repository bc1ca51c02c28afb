import Logging
import NIOCore
import NIOWebSocket
import PusherChannels
import PushtopServer

import enum PusherProtocol.UTF8Validation
import enum PusherProtocol.WebSocketClosePayload

/// One end of a relayed connection, on the connection's event loop: the client's WebSocket (the proxy is its
/// server) or the upstream's (the proxy is its client). It joins frames into messages, inflates them, answers
/// pings, and hands messages, closes and the socket's end to its ``Relay``; it writes what the relay gives it.
final class RelayEnd: WebSocketEndpoint, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    enum Side: String, Sendable {
        case client
        case upstream
    }

    let side: Side
    private let relay: Relay
    private var joiner: WebSocketMessageJoiner
    /// The client side: permessage-deflate as agreed with the client (inbound inflation and outbound compression).
    private let clientDeflate: PerMessageDeflate?
    /// The upstream side: the inflater the upstream's answer agreed to.
    private let upstreamInflater: MessageInflater?
    private let maxMessageBytes: Int
    private var context: ChannelHandlerContext?
    private var encoderContext: ChannelHandlerContext?
    /// Whether a close frame was written to this end.
    private(set) var closeSent = false
    /// Whether this end's close frame arrived.
    private(set) var closeReceived = false
    private var needsFlush = false
    /// Messages for the client since the last flush, as frames in one buffer: one write a burst, not one a frame.
    private var gathered: ByteBuffer?

    init(
        side: Side, relay: Relay, maxMessageBytes: Int, clientDeflate: PerMessageDeflate? = nil,
        upstreamInflater: MessageInflater? = nil
    ) {
        self.side = side
        self.relay = relay
        self.maxMessageBytes = maxMessageBytes
        self.clientDeflate = clientDeflate
        self.upstreamInflater = upstreamInflater
        joiner = WebSocketMessageJoiner(maxMessageBytes: maxMessageBytes)
    }

    var channel: (any Channel)? { context?.channel }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        encoderContext = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        relay.attached(self)
        if !context.channel.isActive { relay.ended(side) }
    }

    /// The channel is gone (closed, its pipeline torn down): the end lets go of its contexts and the relay of the
    /// end. A context holds its handler, the relay its ends and each end the relay, so otherwise every relayed
    /// connection stayed in memory for good: the relay, both ends, their pipelines' handlers, an inflater's window.
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        encoderContext = nil
        relay.detached(self)
    }

    func channelInactive(context: ChannelHandlerContext) {
        relay.ended(side)
        context.fireChannelInactive()
    }

    func socketFailed(_ error: any Error) {
        relay.socketError(side, error)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let mayCompress = side == .client ? clientDeflate != nil : upstreamInflater != nil
        // serve's rules (one copy): masking, reserved bits, RSV1 on a message's first frame only.
        if let (code, reason) = WebSocketMessageJoiner.violation(
            of: frame, fromClient: side == .client, compressionAgreed: mayCompress)
        {
            return fail(code: code, reason: reason)
        }
        switch frame.opcode {
        case .connectionClose:
            guard !closeReceived else { return }
            closeReceived = true
            switch frame.unmaskedData.withUnsafeReadableBytes({ WebSocketClosePayload.check($0) }) {
            case .valid(let code, let reason): relay.closeReceived(from: side, code: code, reason: reason)
            case .invalid(let failCode, let why): fail(code: failCode, reason: "The \(side.rawValue) sent \(why)")
            }
        case .ping:
            write(WebSocketFrame(fin: true, opcode: .pong, maskKey: mask, data: frame.unmaskedData))
            flush()
        case .pong:
            break
        default:
            switch joiner.receive(
                opcode: frame.opcode, fin: frame.fin, compressed: frame.rsv1, payload: frame.unmaskedData)
            {
            case .incomplete: break
            case .message(let message): deliver(message)
            case .fail(let code, let reason): fail(code: code, reason: reason)
            }
        }
    }

    private func deliver(_ message: WebSocketMessageJoiner.Message) {
        var payload = message.payload
        if message.compressed {
            if side == .client {
                switch BoundedInflater.inflate(payload, maxBytes: maxMessageBytes) {
                case .success(let inflated): payload = inflated
                case .failure(.tooLarge): return fail(code: 1009, reason: "Message inflates past the limit")
                case .failure(.corrupt): return fail(code: 1007, reason: "Compressed message does not inflate")
                }
            } else if let upstreamInflater, let allocator = context?.channel.allocator {
                do {
                    payload = try upstreamInflater.inflate(payload, maxSize: maxMessageBytes, allocator: allocator)
                } catch {
                    return fail(code: 1007, reason: "Compressed message does not inflate")
                }
            }
        }
        // serve's rule (section 8.1): a client's text message that is not UTF-8 fails the connection, not the upstream.
        if side == .client, message.opcode == .text,
            !payload.withUnsafeReadableBytes({ UTF8Validation.isValid($0) })
        {
            return fail(code: 1007, reason: "Text message is not valid UTF-8")
        }
        relay.received(from: side, opcode: message.opcode, payload: payload)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        relay.readComplete(from: side)
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        relay.writabilityChanged(side, writable: context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    // MARK: Writing

    /// Frames to the upstream are masked (RFC 6455 section 5.3); to the client, never.
    private var mask: WebSocketMaskingKey? { side == .upstream ? .random() : nil }

    /// Writes a message (not flushed: ``flush()`` after the burst); compressed to a client that agreed to it when
    /// that makes it shorter. Text messages to the client are gathered as frames, header and payload, in one buffer
    /// that goes past the frame encoder at the flush (as `serve` writes its frames): a burst of messages read from
    /// the upstream leaves in one write.
    func send(opcode: WebSocketOpcode, payload: ByteBuffer) {
        guard !closeSent else { return }
        if side == .client, opcode == .text, encoderContext != nil {
            if gathered == nil { gathered = ByteBufferAllocator().buffer(capacity: 1024) }
            if let clientDeflate, payload.readableBytes <= clientDeflate.maxCompressedMessageBytes,
                let compressed = MessageDeflater.frame(compressing: payload)
            {
                gathered!.writeImmutableBuffer(compressed.bytes)
            } else {
                gathered!.reserveCapacity(minimumWritableBytes: payload.readableBytes + 10)
                EncodedTextFrame.append(payload, to: &gathered!)
            }
            needsFlush = true
            return
        }
        write(WebSocketFrame(fin: true, opcode: opcode, maskKey: mask, data: payload))
    }

    private func write(_ frame: WebSocketFrame) {
        guard let context else { return }
        writeGathered()
        context.write(wrapOutboundOut(frame), promise: nil)
        needsFlush = true
    }

    /// Hands the gathered frames to the pipeline (before any other write, so the order holds).
    private func writeGathered() {
        guard let bytes = gathered, let encoderContext else { return }
        gathered = nil
        encoderContext.write(NIOAny(bytes), promise: nil)
    }

    func flush() {
        guard needsFlush, let context else { return }
        needsFlush = false
        writeGathered()
        context.flush()
    }

    /// Sends a close frame with `code` and `reason` (cut to fit a control frame).
    func sendClose(code: Int, reason: String) {
        guard !closeSent, let context else { return }
        closeSent = true
        writeGathered()
        let payload = context.channel.allocator.buffer(bytes: WebSocketClosePayload.encoded(code: code, reason: reason))
        context.write(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: mask, data: payload))
        )
        .assumeIsolated().whenComplete { [relay, side] _ in relay.closeWritten(side) }
        context.flush()
        needsFlush = false
    }

    /// Ends the socket now (no close frame, or after one).
    func drop() {
        context?.close(promise: nil)
    }

    /// Reads from this end or stops (the other end cannot take more).
    func setReading(_ on: Bool) {
        guard let context else { return }
        context.channel.setOption(ChannelOptions.autoRead, value: on).whenFailure { _ in }
        if on { context.read() }
    }

    var isWritable: Bool { context?.channel.isWritable ?? false }

    /// Fails this end (RFC 6455 section 7.1.7): a close frame with the code, then the socket ends.
    func fail(code: Int, reason: String) {
        relay.protocolFailure(side, code: code, reason: reason)
    }
}
