import Foundation
import NIOCore
import NIOWebSocket
import PusherProtocol

/// The last handler of a client connection: reassembles and inflates messages, answers pings, runs the close
/// handshake, decodes Pusher messages and hands each read burst over in one piece at `channelReadComplete`.
///
/// Everything here runs on the connection's event loop; the client actor is pinned to the same loop, so a burst
/// reaches it without a thread hop.
final class PusherFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = Never
    typealias OutboundOut = WebSocketFrame

    private let settings: TransportSettings
    private let tap: FrameTap
    private let outcome: ConnectionOutcome
    private let inflater: MessageInflater?
    private var burst: [TransportEvent] = []
    /// The array of the previous burst, emptied, so that the next one reuses its storage.
    private var spareBurst: [TransportEvent] = []
    /// Decodes text frames from their bytes; remembers the event and channel names it has seen.
    private var decoder = PusherFrameDecoder()
    private var tapped: [WireFrame] = []
    /// A fragmented message being reassembled: its opcode, whether it is compressed, its bytes so far.
    private var partial: (opcode: WebSocketOpcode, compressed: Bool, data: ByteBuffer)?
    private(set) var closeSent = false
    private var context: ChannelHandlerContext?

    init(settings: TransportSettings, tap: FrameTap, outcome: ConnectionOutcome, inflater: MessageInflater?) {
        self.settings = settings
        self.tap = tap
        self.outcome = outcome
        self.inflater = inflater
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        burst.append(.opened)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    // MARK: - Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            guard partial == nil else { return protocolError(context, "a new message began before the last one ended") }
            if frame.fin {
                receiveMessage(context, opcode: frame.opcode, compressed: frame.rsv1, data: frame.unmaskedData)
            } else {
                partial = (frame.opcode, frame.rsv1, frame.unmaskedData)
            }
        case .continuation:
            guard var message = partial else { return protocolError(context, "a continuation frame without a message") }
            var more = frame.unmaskedData
            guard message.data.readableBytes + more.readableBytes <= settings.maxMessageSize else {
                partial = nil
                return closeForError(context, code: 1009, reason: "message exceeds \(settings.maxMessageSize) bytes")
            }
            partial = nil
            message.data.writeBuffer(&more)
            if frame.fin {
                receiveMessage(context, opcode: message.opcode, compressed: message.compressed, data: message.data)
            } else {
                partial = message
            }
        case .ping:
            let payload = frame.unmaskedData
            tapControl(.inbound, .ping, payload)
            if !closeSent {
                write(context, WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: payload))
                tapControl(.outbound, .pong, payload)
            }
        case .pong:
            tapControl(.inbound, .pong, frame.unmaskedData)
        case .connectionClose:
            receiveClose(context, frame.unmaskedData)
        default:
            protocolError(context, "unknown opcode \(frame.opcode)")
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        handOver()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        handOver(ending: true)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError {
            // WebSocketProtocolErrorHandler (before us) has already sent the matching close frame.
            closeSent = true
            outcome.fail("the server broke the WebSocket protocol: \(Self.describe(error))")
        } else {
            outcome.fail(WebSocketTransport.describe(error))
        }
        context.close(promise: nil)
    }

    private func receiveMessage(
        _ context: ChannelHandlerContext, opcode: WebSocketOpcode, compressed: Bool, data: ByteBuffer
    ) {
        var data = data
        if compressed {
            guard let inflater else { return protocolError(context, "a compressed frame without permessage-deflate") }
            do {
                data = try inflater.inflate(
                    data, maxSize: settings.maxMessageSize, allocator: context.channel.allocator)
            } catch {
                return closeForError(
                    context, code: 1009,
                    reason: "compressed message exceeds \(settings.maxMessageSize) bytes or is corrupt")
            }
        }
        let size = data.readableBytes
        guard opcode == .text else {
            if tap.isOn {
                tapped.append(
                    WireFrame(time: Self.wallClock(), direction: .inbound, kind: .binary, size: size, text: ""))
            }
            burst.append(.malformed(.binaryFrame(size: size)))
            return
        }
        // Decoded from the frame's bytes: no `String` of the whole frame unless someone keeps it (a tap, raw frames).
        let tapping = tap.isOn
        let keepText = tapping || settings.keepRawFrames
        let maxFrameSize = settings.maxFrameSize
        let decoded: (valid: Bool, text: String?, result: Result<PusherMessage, PusherMessageError>?) =
            data.withUnsafeReadableBytes { bytes in
                guard UTF8Validation.isValid(bytes) else { return (false, nil, nil) }
                let text = keepText ? String(decoding: bytes, as: UTF8.self) : nil
                guard size <= maxFrameSize else { return (true, text, nil) }
                do throws(PusherMessageError) {
                    return (true, text, .success(try decoder.decode(bytes)))
                } catch {
                    return (true, text, .failure(error))
                }
            }
        guard decoded.valid else {
            return closeForError(context, code: 1007, reason: "a text frame that is not UTF-8")
        }
        if tapping {
            tapped.append(
                WireFrame(
                    time: Self.wallClock(), direction: .inbound, kind: .text, size: size,
                    text: decoded.text ?? ""))
        }
        switch decoded.result {
        case nil: burst.append(.malformed(.tooLarge(size: size, limit: maxFrameSize)))
        case .success(let message)?: burst.append(.message(message, raw: decoded.text))
        case .failure(let error)?: burst.append(.malformed(error))
        }
    }

    private func receiveClose(_ context: ChannelHandlerContext, _ payload: ByteBuffer) {
        let verdict = payload.withUnsafeReadableBytes { WebSocketClosePayload.check($0) }
        if tap.isOn {
            // The frame as it came, whether or not it is valid.
            var raw = payload
            let code = raw.readableBytes >= 2 ? raw.readInteger(as: UInt16.self).map(Int.init) : nil
            let reason = String(decoding: raw.readableBytesView, as: UTF8.self)
            tapped.append(
                WireFrame(
                    time: Self.wallClock(), direction: .inbound, kind: .close, size: payload.readableBytes,
                    text: reason, closeCode: code ?? 1005))
        }
        switch verdict {
        case .valid(let code, let reason):
            // The connection's close code is the first close frame's (RFC 6455 7.1.5); when we failed the
            // connection ourselves, the server's echo of our code is not the reason it ended: the failure is.
            if outcome.closeFrame == nil, outcome.failure == nil { outcome.closeFrame = (code ?? 1005, reason) }
            if closeSent {
                // Our close was answered: the handshake is complete.
                context.close(promise: nil)
            } else {
                // Echo the code (RFC 6455 5.5.1), then let the server end TCP, or end it ourselves if it does not.
                sendClose(context, code: code ?? 1000, reason: "")
            }
        case .invalid(let failCode, let why):
            if closeSent {
                // Our close was answered with a broken one: nothing more to say.
                outcome.fail("the server answered with \(why)")
                context.close(promise: nil)
            } else {
                // A broken close fails the connection (RFC 6455 7.4): 1002 or 1007, and the server's code is
                // not taken as the reason the connection ended.
                closeForError(context, code: failCode, reason: "the server sent \(why)")
            }
        }
    }

    /// Hands what this read produced to the client in one call.
    private func handOver(ending: Bool = false) {
        if !tapped.isEmpty {
            tap.publish(tapped)
            tapped.removeAll(keepingCapacity: true)
        }
        if burst.isEmpty && !ending { return }
        // Two arrays take turns, so a steady stream allocates none; `burst` is empty before `report` runs, which
        // may come back here (a close on this loop ends the channel at once).
        var events = spareBurst
        spareBurst = []
        swap(&events, &burst)
        outcome.report(events, ending: ending)
        events.removeAll(keepingCapacity: true)
        spareBurst = events
    }

    // MARK: - Outbound

    /// Sends a text frame (masked, as clients must).
    func sendText(_ text: String) {
        guard let context, !closeSent else { return }
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        if tap.isOn {
            tap.publish([
                WireFrame(
                    time: Self.wallClock(), direction: .outbound, kind: .text, size: buffer.readableBytes, text: text)
            ])
        }
        write(context, WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer))
    }

    /// Starts the close handshake; the TCP connection is dropped if the server has not ended it in time.
    func close(code: Int, reason: String) {
        guard let context else { return }
        sendClose(context, code: code, reason: reason)
    }

    private func sendClose(_ context: ChannelHandlerContext, code: Int, reason: String) {
        guard !closeSent else { return }
        closeSent = true
        // A reason longer than a control frame allows would make the server fail the connection instead.
        let buffer = context.channel.allocator.buffer(bytes: WebSocketClosePayload.encoded(code: code, reason: reason))
        if tap.isOn {
            tap.publish([
                WireFrame(
                    time: Self.wallClock(), direction: .outbound, kind: .close, size: buffer.readableBytes,
                    text: String(WebSocketClosePayload.fitting(reason)), closeCode: code)
            ])
        }
        write(context, WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: buffer))
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: .milliseconds(Int64(settings.closeTimeout * 1000))) {
            channel.close(promise: nil)
        }
    }

    private func write(_ context: ChannelHandlerContext, _ frame: WebSocketFrame) {
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func protocolError(_ context: ChannelHandlerContext, _ what: String) {
        closeForError(context, code: 1002, reason: what)
    }

    private func closeForError(_ context: ChannelHandlerContext, code: Int, reason: String) {
        outcome.fail("closed with \(code): \(reason)")
        sendClose(context, code: code, reason: reason)
    }

    private func tapControl(_ direction: WireFrame.Direction, _ kind: WireFrame.Kind, _ payload: ByteBuffer) {
        guard tap.isOn else { return }
        tapped.append(
            WireFrame(
                time: Self.wallClock(), direction: direction, kind: kind, size: payload.readableBytes,
                text: String(buffer: payload)))
    }

    static func wallClock() -> Double {
        Date().timeIntervalSince1970
    }

    private static func describe(_ error: NIOWebSocketError) -> String {
        switch error {
        case .invalidFrameLength: return "a frame larger than the maximum message size (1009)"
        case .fragmentedControlFrame: return "a fragmented control frame (1002)"
        case .multiByteControlFrameLength: return "an oversized control frame (1002)"
        }
    }
}
