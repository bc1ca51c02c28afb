import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import PusherChannels
import PushtopServer

/// Why the upstream's end of a connection could not be opened.
enum UpstreamFailure: Error, CustomStringConvertible {
    /// The upstream answered the upgrade with another status.
    case refused(status: Int, reason: String)
    /// No connection (refused, timed out, TLS failed).
    case unreachable(String)

    var description: String {
        switch self {
        case .refused(let status, let reason):
            return "the upstream refused the WebSocket upgrade: HTTP \(status) \(reason)"
        case .unreachable(let why): return "the upstream cannot be reached: \(why)"
        }
    }
}

/// Opens the upstream's end of one relayed connection, on the client's event loop: the client's request target,
/// its headers (without the hop-by-hop ones and the handshake's own) with `X-Forwarded-For`, and the proxy's own
/// permessage-deflate offer (each side negotiates on its own).
enum UpstreamDialer {
    /// Headers of the client's request that are not forwarded: the handshake's (NIO makes the upstream's own) and
    /// the hop-by-hop ones.
    static let notForwarded: Set<String> = [
        "host", "connection", "upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
        "sec-websocket-accept", "content-length", "transfer-encoding", "keep-alive", "proxy-connection", "te",
        "trailer",
    ]

    /// The upstream's 101 answer, once its ``RelayEnd`` is in the pipeline.
    static func connect(
        core: ProxyCore, relay: Relay, head: HTTPRequestHead, on eventLoop: any EventLoop
    ) -> EventLoopFuture<HTTPResponseHead> {
        let promise = eventLoop.makePromise(of: HTTPResponseHead.self)
        let target = core.upstream
        let headers = forwardedHeaders(head.headers, core: core, relay: relay)
        let path = target.target == "/" ? head.uri : String(target.target.split(separator: "?")[0]) + head.uri
        let sslContext = core.sslContext
        let maxBytes = core.configuration.maxMessageBytes
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(10))
            .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(
                            NIOSSLClientHandler(
                                context: sslContext, serverHostname: target.hostIsIPAddress ? nil : target.host))
                    }
                    let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: maxBytes, automaticErrorHandling: false) {
                        channel, response in
                        channel.eventLoop.makeCompletedFuture {
                            let pipeline = channel.pipeline.syncOperations
                            let request = try pipeline.handler(type: UpstreamRequestHandler.self)
                            pipeline.removeHandler(request, promise: nil)
                            let inflater = try MessageInflater.negotiated(by: response)
                            try pipeline.addHandler(
                                RelayEnd(
                                    side: .upstream, relay: relay, maxMessageBytes: maxBytes,
                                    upstreamInflater: inflater))
                            promise.succeed(response)
                        }
                    }
                    try sync.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    try sync.addHandler(UpstreamRequestHandler(uri: path, headers: headers, promise: promise))
                }
            }
        bootstrap.connect(host: target.host, port: target.port).whenComplete { result in
            switch result {
            case .success(let channel):
                channel.closeFuture.whenComplete { _ in
                    promise.fail(UpstreamFailure.unreachable("the connection closed during the upgrade"))
                }
            case .failure(let error):
                core.noteOpenFailure(error)
                promise.fail(UpstreamFailure.unreachable(WebSocketTransport.describe(error)))
            }
        }
        return promise.futureResult
    }

    /// The client's headers for the upstream: the handshake's and hop-by-hop ones out, `Host` the upstream's,
    /// `X-Forwarded-For` with the client's address added, the proxy's deflate offer when the client made one.
    static func forwardedHeaders(_ incoming: HTTPHeaders, core: ProxyCore, relay: Relay) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: core.upstream.hostHeader)
        var forwardedFor: [String] = []
        for (name, value) in incoming {
            let lower = name.lowercased()
            if lower == "x-forwarded-for" {
                forwardedFor.append(value)
                continue
            }
            guard !notForwarded.contains(lower) else { continue }
            headers.add(name: name, value: value)
        }
        if !relay.remoteHost.isEmpty { forwardedFor.append(relay.remoteHost) }
        if !forwardedFor.isEmpty { headers.add(name: "X-Forwarded-For", value: forwardedFor.joined(separator: ", ")) }
        if let host = incoming.first(name: "host"), !incoming.contains(name: "x-forwarded-host") {
            headers.add(name: "X-Forwarded-Host", value: host)
        }
        // Asked of the upstream only for a client that offered it: a client that does not compress costs the
        // upstream no deflating and the proxy no inflating (on loopback, a tenth of the proxy's CPU per frame).
        if core.configuration.compression, offersDeflate(incoming) {
            headers.add(name: "Sec-WebSocket-Extensions", value: MessageInflater.offer)
        }
        headers.add(name: "Content-Length", value: "0")
        return headers
    }
}

extension UpstreamDialer {
    /// Whether the client's upgrade offers permessage-deflate (in any of its `Sec-WebSocket-Extensions` headers).
    static func offersDeflate(_ headers: HTTPHeaders) -> Bool {
        headers["sec-websocket-extensions"].flatMap(ExtensionList.parse).contains {
            $0.name.lowercased() == "permessage-deflate"
        }
    }
}

/// Sends the upgrade request once the connection (and TLS) is up; any answer but 101 fails the dial.
final class UpstreamRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let uri: String
    private let headers: HTTPHeaders
    private let promise: EventLoopPromise<HTTPResponseHead>

    init(uri: String, headers: HTTPHeaders, promise: EventLoopPromise<HTTPResponseHead>) {
        self.uri = uri
        self.headers = headers
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let response) = unwrapInboundIn(data) {
            promise.fail(
                UpstreamFailure.refused(status: Int(response.status.code), reason: response.status.reasonPhrase))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(UpstreamFailure.unreachable(WebSocketTransport.describe(error)))
        context.close(promise: nil)
    }
}
