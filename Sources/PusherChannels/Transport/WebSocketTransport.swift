import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// The real transport: a SwiftNIO pipeline on the client's event loop.
///
/// `ClientBootstrap` → NIOSSL (SNI for host names, none for IP literals) → NIOHTTP1 with NIOWebSocket's client
/// upgrader → NIOWebSocket's frame codec → `PusherFrameHandler`, which reassembles, inflates
/// (permessage-deflate, compress-nio), decodes Pusher messages and hands each read burst to the client at once.
public struct WebSocketTransport: PusherTransport {
    /// Where the transport logs.
    public var logger: Logger

    /// A transport that logs to `logger` (label `pushtop.transport` by default).
    public init(logger: Logger = Logger(label: "pushtop.transport")) {
        self.logger = logger
    }

    public func open(
        url: String, on eventLoop: any EventLoop, settings: TransportSettings, tap: FrameTap,
        deliver: @escaping @Sendable ([TransportEvent]) -> Void
    ) -> any TransportConnection {
        let connection = WebSocketConnection(eventLoop: eventLoop)
        let outcome = ConnectionOutcome(deliver: deliver)
        func failNow(_ reason: String) -> any TransportConnection {
            eventLoop.execute {
                outcome.fail(reason)
                outcome.report([], ending: true)
            }
            return connection
        }
        guard let target = WebSocketURL(url) else { return failNow("not a ws:// or wss:// URL: \(url)") }
        var sslContext: NIOSSLContext?
        if target.useTLS {
            do {
                sslContext = try Self.makeSSLContext(caFile: settings.caFile)
            } catch {
                return failNow("TLS setup failed: \(error)")
            }
        }
        let requestName = "pushtop.upgrade-request"
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.milliseconds(Int64(settings.connectTimeout * 1000)))
            .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { [sslContext] channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(
                            NIOSSLClientHandler(
                                context: sslContext, serverHostname: target.hostIsIPAddress ? nil : target.host))
                    }
                    let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: settings.maxMessageSize) {
                        channel, response in
                        channel.eventLoop.makeCompletedFuture {
                            let pipeline = channel.pipeline.syncOperations
                            // Out before the WebSocket handlers see any bytes: it only speaks HTTP.
                            let request = try pipeline.handler(type: UpgradeRequestHandler.self)
                            pipeline.removeHandler(request, promise: nil)
                            let inflater = try MessageInflater.negotiated(by: response)
                            let handler = PusherFrameHandler(
                                settings: settings, tap: tap, outcome: outcome, inflater: inflater)
                            try pipeline.addHandler(handler)
                            if settings.readCoalescing > 0 {
                                // After the upgrade, so that the handshakes are not paced.
                                try pipeline.addHandler(
                                    ReadCoalescingHandler(
                                        interval: .nanoseconds(Int64(settings.readCoalescing * 1e9))), position: .first)
                            }
                            connection.upgraded(handler)
                        }
                    }
                    // `.forwardBytes`: a frame that arrives in the same segment as the 101 response is kept.
                    try sync.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    try sync.addHandler(
                        UpgradeRequestHandler(host: target.hostHeader, target: target.target, outcome: outcome),
                        name: requestName)
                }
            }
        bootstrap.connect(host: target.host, port: target.port).whenComplete { result in
            switch result {
            case .success(let channel):
                connection.attach(channel)
                channel.closeFuture.whenComplete { _ in outcome.report([], ending: true) }
            case .failure(let error):
                outcome.fail(Self.describe(error))
                outcome.report([], ending: true)
            }
        }
        return connection
    }

    package static func makeSSLContext(caFile: String?) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            configuration.additionalTrustRoots = [.file(caFile)]
        }
        return try NIOSSLContext(configuration: configuration)
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

/// The handle of one ``WebSocketTransport`` connection. Its state is touched only on the connection's event loop;
/// calls from elsewhere hop there.
final class WebSocketConnection: TransportConnection, @unchecked Sendable {
    private let eventLoop: any EventLoop
    private var channel: (any Channel)?
    private var handler: PusherFrameHandler?
    private var queued: [String] = []
    private var closeRequest: (code: Int, reason: String)?

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func send(_ text: String) {
        onLoop {
            if let handler = self.handler {
                handler.sendText(text)
            } else if self.closeRequest == nil {
                self.queued.append(text)
            }
        }
    }

    func close(code: Int, reason: String) {
        onLoop {
            guard self.closeRequest == nil else { return }
            self.closeRequest = (code, reason)
            if let handler = self.handler {
                handler.close(code: code, reason: reason)
            } else {
                // Not upgraded yet: there is no WebSocket to close, only a socket.
                self.channel?.close(promise: nil)
            }
        }
    }

    func attach(_ channel: any Channel) {
        self.channel = channel
        if closeRequest != nil && handler == nil { channel.close(promise: nil) }
    }

    func upgraded(_ handler: PusherFrameHandler) {
        self.handler = handler
        if let closeRequest {
            handler.close(code: closeRequest.code, reason: closeRequest.reason)
            return
        }
        for text in queued { handler.sendText(text) }
        queued = []
    }

    private func onLoop(_ body: @escaping () -> Void) {
        if eventLoop.inEventLoop {
            body()
        } else {
            let box = UnsafeTransferBox(body)
            eventLoop.execute { box.value() }
        }
    }
}

/// Carries a closure to the event loop that owns everything it touches.
private struct UnsafeTransferBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
