import NIOCore
import NIOHTTP1
import NIOWebSocket
import PusherProtocol

/// The client's side of the WebSocket handshake, read by hand: it sends the upgrade request once the connection (and
/// TLS) is up, reads the response head, checks a `101` (`Upgrade: websocket`, `Sec-WebSocket-Accept`), puts NIO's
/// frame encoder and decoder and the caller's handlers behind itself, hands them the bytes that came after the head,
/// and leaves the pipeline, all in the read that completed the head.
///
/// - Important: So nothing the server sends with its `101` is lost, even when the connection ends in the same read:
///   a `pusher:error`, a close frame, then the FIN reach the frame decoder before `channelInactive` does.
final class WebSocketClientHandshake: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The longest response head read.
    static let maxHeadBytes = 64 << 10

    private let request: String
    private let key: String
    private let maxFrameSize: Int
    private let protocolErrorHandler: Bool
    private let promise: EventLoopPromise<HTTPResponseHead>
    private let upgraded: @Sendable (any Channel, HTTPResponseHead) throws -> Void
    private var received: ByteBuffer?
    private var done = false

    init(
        request: String, key: String, maxFrameSize: Int, protocolErrorHandler: Bool,
        promise: EventLoopPromise<HTTPResponseHead>,
        upgraded: @escaping @Sendable (any Channel, HTTPResponseHead) throws -> Void
    ) {
        self.request = request
        self.key = key
        self.maxFrameSize = maxFrameSize
        self.protocolErrorHandler = protocolErrorHandler
        self.promise = promise
        self.upgraded = upgraded
    }

    func channelActive(context: ChannelHandlerContext) {
        // With TLS, NIOSSL holds the request back until its handshake is done.
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return context.fireChannelRead(data) }
        var bytes = unwrapInboundIn(data)
        if received == nil {
            received = bytes
        } else {
            received!.writeBuffer(&bytes)
        }
        guard let end = Self.endOfHead(received!) else {
            if received!.readableBytes > Self.maxHeadBytes {
                fail(context, .invalidResponse("a response head over \(Self.maxHeadBytes >> 10) KB"))
            }
            return
        }
        done = true
        var rest = received!
        received = nil
        let headText = rest.readString(length: end - rest.readerIndex) ?? ""
        rest.moveReaderIndex(forwardBy: 4)
        let head: HTTPResponseHead
        switch Self.parse(headText) {
        case .failure(let error): return fail(context, error)
        case .success(let parsed): head = parsed
        }
        guard head.status == .switchingProtocols else {
            return fail(context, .refused(status: Int(head.status.code), reason: head.status.reasonPhrase))
        }
        if let problem = check(head) { return fail(context, .invalidResponse(problem)) }
        do {
            // As NIO's upgrader leaves them: encoder, decoder, (error handler), then the caller's.
            let pipeline = context.pipeline.syncOperations
            try pipeline.addHandler(WebSocketFrameEncoder())
            try pipeline.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrameSize)))
            if protocolErrorHandler {
                try pipeline.addHandler(WebSocketProtocolErrorHandler(isServer: false))
            }
            try upgraded(context.channel, head)
        } catch {
            return fail(context, .setup("\(error)"))
        }
        // In this read, before anything else can happen on the connection (its end comes after this read).
        if rest.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(rest)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        promise.succeed(head)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done { fail(context, .closed) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !done else { return context.fireErrorCaught(error) }
        fail(context, .failed(error))
    }

    private func fail(_ context: ChannelHandlerContext, _ error: WebSocketDialError) {
        done = true
        received = nil
        promise.fail(error)
        context.close(promise: nil)
    }

    /// What is wrong with a `101` for this request, if anything.
    private func check(_ head: HTTPResponseHead) -> String? {
        let upgrade = head.headers[canonicalForm: "upgrade"].map { $0.lowercased() }
        guard upgrade.contains("websocket") else {
            return "the 101 upgrades to \(upgrade.isEmpty ? "nothing" : upgrade.joined(separator: ", ")), not websocket"
        }
        let accept = head.headers["sec-websocket-accept"]
        guard accept.count == 1, accept[0].trimmingASCIISpaces == WebSocketAccept.value(forKey: key) else {
            return
                "the 101's Sec-WebSocket-Accept (\(accept.joined(separator: ", "))) does not answer the request's key"
        }
        return nil
    }

    /// The index of the `\r\n\r\n` that ends the response head.
    static func endOfHead(_ buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard bytes.count >= 4 else { return nil }
            for index in 0...(bytes.count - 4)
            where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                return buffer.readerIndex + index
            }
            return nil
        }
    }

    /// The status line and header fields of a response head (without its blank line).
    static func parse(_ text: String) -> Result<HTTPResponseHead, WebSocketDialError> {
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        let statusLine = lines.popFirst().map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let version = Self.version(parts[0]), let status = Int(parts[1]),
            (100...999).contains(status)
        else {
            return .failure(.invalidResponse("not an HTTP response: \(statusLine.prefix(80))"))
        }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(.invalidResponse("a header line without a colon: \(line.prefix(80))"))
            }
            headers.add(
                name: String(line[..<colon]), value: String(line[line.index(after: colon)...]).trimmingASCIISpaces)
        }
        let reason = parts.count > 2 ? String(parts[2]) : ""
        return .success(
            HTTPResponseHead(
                version: version, status: .init(statusCode: status, reasonPhrase: reason), headers: headers))
    }

    private static func version(_ text: Substring) -> HTTPVersion? {
        switch text {
        case "HTTP/1.1": return .http1_1
        case "HTTP/1.0": return .http1_0
        default: return nil
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space).
    fileprivate var trimmingASCIISpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
