import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Opens a client WebSocket: TCP, TLS (with SNI for host names) for `wss://`, the upgrade request and its `101`,
/// then NIO's frame encoder and decoder and the caller's handlers. The one dial of the client library
/// (``WebSocketTransport``), the proxy's upstream side and `pushtop conform`'s probe socket (`package`).
///
/// The handshake is read by hand (``WebSocketClientHandshake``), not by NIO's client upgrader, which could lose
/// what the server sent with its `101` when the connection ended in the same read: every byte after the response
/// head (a `pusher:error`, a close frame) reaches the frame decoder in that read, before the end of the connection.
package struct WebSocketDialer: Sendable {
    /// Where to connect.
    package var url: WebSocketURL
    /// The request target (path and query): the URL's unless set.
    package var target: String
    /// Request headers besides the handshake's own (`Host`, `Upgrade`, `Connection`, `Sec-WebSocket-Key`,
    /// `Sec-WebSocket-Version`, and the deflate offer): a `User-Agent`, an `Origin`, the proxy's `X-Forwarded-For`.
    package var headers: HTTPHeaders
    /// Whether to offer permessage-deflate (``MessageInflater/offer``); the caller reads the answer from the `101`.
    package var offerDeflate: Bool
    /// The TLS context for `wss://` (``makeTLSContext(caFile:)``); `nil` for `ws://`.
    package var tls: NIOSSLContext?
    /// How long TCP may take to connect.
    package var connectTimeout: TimeAmount
    /// How long TLS and the upgrade may take once TCP is up; `nil`: no limit of the dial's own.
    package var handshakeTimeout: TimeAmount?
    /// The largest frame the decoder accepts.
    package var maxFrameSize: Int
    /// Whether NIO's `WebSocketProtocolErrorHandler` answers a broken frame with its close code (the caller then sees
    /// the error after the close frame went out).
    package var protocolErrorHandler: Bool

    /// - Parameters:
    ///   - url: where to connect.
    ///   - target: the request target, if not the URL's.
    ///   - headers: extra request headers.
    ///   - offerDeflate: offer permessage-deflate.
    ///   - tls: the TLS context, needed for `wss://`.
    package init(
        url: WebSocketURL, target: String? = nil, headers: HTTPHeaders = [:], offerDeflate: Bool = false,
        tls: NIOSSLContext? = nil, connectTimeout: TimeAmount = .seconds(10), handshakeTimeout: TimeAmount? = nil,
        maxFrameSize: Int = 16 << 20, protocolErrorHandler: Bool = false
    ) {
        self.url = url
        self.target = target ?? url.target
        self.headers = headers
        self.offerDeflate = offerDeflate
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.handshakeTimeout = handshakeTimeout
        self.maxFrameSize = maxFrameSize
        self.protocolErrorHandler = protocolErrorHandler
    }

    /// A client TLS context trusting the system's certificate authorities and those of `caFile` (PEM).
    package static func makeTLSContext(caFile: String?) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            configuration.additionalTrustRoots = [.file(caFile)]
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// Starts the dial on `eventLoop`.
    ///
    /// - Parameter upgraded: called on the connection's event loop once the server's `101` is checked, with the frame
    ///   encoder and decoder in place (and NIO's protocol error handler when asked): it adds the caller's handlers.
    ///   The bytes that came after the `101` reach them right after it returns, in the same read. If it throws, the
    ///   dial fails with ``WebSocketDialError/setup(_:)`` and the connection is closed.
    package func dial(
        on eventLoop: any EventLoop,
        upgraded: @escaping @Sendable (any Channel, HTTPResponseHead) throws -> Void
    ) -> WebSocketDial {
        let promise = eventLoop.makePromise(of: HTTPResponseHead.self)
        guard !url.useTLS || tls != nil else {
            let error = WebSocketDialError.setup("a wss:// URL without a TLS context")
            promise.fail(error)
            return WebSocketDial(channel: eventLoop.makeFailedFuture(error), upgraded: promise.futureResult)
        }
        let key = WebSocketAccept.randomKey()
        let request = requestHead(key: key)
        let (url, tls, maxFrameSize, errors) = (url, tls, maxFrameSize, protocolErrorHandler)
        let connected = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        try sync.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: url.hostIsIPAddress ? nil : url.host))
                    }
                    try sync.addHandler(
                        WebSocketClientHandshake(
                            request: request, key: key, maxFrameSize: maxFrameSize, protocolErrorHandler: errors,
                            promise: promise, upgraded: upgraded))
                }
            }
            .connect(host: url.host, port: url.port)
        let handshakeTimeout = handshakeTimeout
        connected.whenComplete { result in
            switch result {
            case .success(let channel):
                channel.closeFuture.whenComplete { _ in promise.fail(WebSocketDialError.closed) }
                guard let handshakeTimeout else { return }
                let timer = channel.eventLoop.scheduleTask(in: handshakeTimeout) {
                    promise.fail(WebSocketDialError.timedOut(handshakeTimeout))
                    channel.close(promise: nil)
                }
                promise.futureResult.whenComplete { _ in timer.cancel() }
            case .failure(let error):
                promise.fail(WebSocketDialError.connect(error))
            }
        }
        return WebSocketDial(channel: connected, upgraded: promise.futureResult)
    }

    /// The upgrade request's bytes, head only (a GET has no body).
    func requestHead(key: String) -> String {
        var text = "GET \(target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if offerDeflate { text += "Sec-WebSocket-Extensions: \(MessageInflater.offer)\r\n" }
        for (name, value) in headers where !Self.handshakeHeaders.contains(name.lowercased()) {
            text += "\(name): \(value)\r\n"
        }
        return text + "\r\n"
    }

    /// Headers the dial writes itself; a caller's are left out.
    static let handshakeHeaders: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "content-length",
        "transfer-encoding",
    ]
}

/// One dial under way.
package struct WebSocketDial: Sendable {
    /// The TCP connection, once open (before TLS and the upgrade): closing it abandons the dial. Fails with the
    /// connection's error.
    package var channel: EventLoopFuture<any Channel>
    /// The server's `101`, once checked and the caller's handlers are in place; fails with a
    /// ``WebSocketDialError``.
    package var upgraded: EventLoopFuture<HTTPResponseHead>
}

/// Why a ``WebSocketDialer`` dial failed.
package enum WebSocketDialError: Error, CustomStringConvertible {
    /// No TCP connection: refused, timed out, no route, out of file descriptors.
    case connect(any Error)
    /// The connection failed during TLS or the upgrade (a certificate that is not trusted, a reset).
    case failed(any Error)
    /// The server answered the upgrade with another status.
    case refused(status: Int, reason: String)
    /// The server's answer is not a WebSocket upgrade (not HTTP, a wrong `Sec-WebSocket-Accept`, a head over 64 KB).
    case invalidResponse(String)
    /// The connection ended before the response head was complete.
    case closed
    /// TLS and the upgrade took longer than the dial's handshake timeout.
    case timedOut(TimeAmount)
    /// The caller's handlers could not be added, or the dial was set up wrong.
    case setup(String)

    package var description: String {
        switch self {
        case .connect(let error), .failed(let error): return Self.describe(error)
        case .refused(let status, let reason):
            return "the server refused the WebSocket upgrade: HTTP \(status) \(reason)"
        case .invalidResponse(let why): return "not a WebSocket upgrade: \(why)"
        case .closed: return "the connection closed during the upgrade"
        case .timedOut(let limit):
            return "no answer to the WebSocket upgrade within \(Double(limit.nanoseconds) / 1e9) s"
        case .setup(let why): return "the connection could not be set up: \(why)"
        }
    }

    /// A short, user-facing reason for a failed connection.
    package static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectTimeout") { return "connection timed out" }
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return
                "TLS handshake failed: the server's certificate is not trusted (a private CA needs --ca-file): \(text)"
        }
        if error is NIOSSLError || error is NIOSSLExtraError { return "TLS failed: \(text)" }
        return text
    }
}
