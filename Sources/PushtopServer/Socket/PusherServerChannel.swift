import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// One connection of the embedded server: HTTP/1.1 for the API (``HTTPAPIHandler`` over ``HTTPAPICore``, on the
/// connection's event loop) and for `/health`, `/metrics`, the console feed and the demo auth endpoint (served by
/// Hummingbird's router), or a WebSocket on `/app/{key}` served by ``WebSocketConnectionHandler`` on the
/// connection's event loop.
///
/// Modelled on HummingbirdWebSocket's `HTTP1WebSocketUpgradeChannel`, but the upgrade installs our channel
/// handler instead of a task and an async stream per connection. Before NIO's upgrader: ``HTTPRequestDeadlineHandler``
/// (header, body and idle timeouts); ``HTTPAPIHandler``, which serves the API, keeps every answer in request order
/// and answers malformed HTTP with 400 (431 for oversized headers) and a close; ``WebSocketHandshakeValidator``
/// (400/426 for broken handshakes). Before the HTTP decoder, ``HTTP09RequestGuard`` answers an HTTP/0.9 request
/// line, which the decoder would wait on forever.
struct PusherServerChannel: ServerChildChannel, HTTPChannelHandler {
    /// What the first request of a connection became.
    enum UpgradeResult: Sendable {
        /// A WebSocket, now owned by its channel handler and the hub.
        case webSocket
        /// Plain HTTP, handed to Hummingbird.
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    /// Timings and sizes of a connection.
    struct Settings: Sendable {
        var maxMessageBytes: Int
        var maxPendingOutboundBytes: Int
        var closeGrace: TimeAmount
        var requestTimeout: TimeAmount
        var idleTimeout: TimeAmount
        /// The HTTP API.
        var api: HTTPAPICore
        /// Accept permessage-deflate when a client offers it.
        var compression = true
    }

    let responder: HTTPChannelHandler.Responder
    /// The apps served: a WebSocket for `/app/{key}` goes to the inbox of the app with that key.
    let apps: AppDirectory
    let settings: Settings

    init(responder: @escaping HTTPChannelHandler.Responder, apps: AppDirectory, settings: Settings) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.apps = apps
        self.settings = settings
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let settings = self.settings
            let apps = self.apps
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: settings.maxMessageBytes,
                enableAutomaticErrorHandling: false,
                shouldUpgrade: { channel, head in
                    // WebSocketHandshakeValidator has refused every handshake that must not pass.
                    var headers = HTTPHeaders()
                    if settings.compression, let deflate = PerMessageDeflate.negotiate(head.headers) {
                        headers.add(name: "Sec-WebSocket-Extensions", value: deflate.responseHeader)
                    }
                    return channel.eventLoop.makeSucceededFuture(headers)
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        try Self.becomeWebSocket(channel, head: head, apps: apps, settings: settings, logger: logger)
                    }
                }
            )
            let upgradeConfiguration = NIOTypedHTTPServerUpgradeConfiguration<UpgradeResult>(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try operations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
                        try operations.addHandler(ConsoleClientWatch(channel: channel), position: .first)
                        return .notUpgraded(
                            try NIOAsyncChannel(
                                wrappingChannelSynchronously: channel,
                                configuration: .init(isOutboundHalfClosureEnabled: true)))
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgradeConfiguration)
            configuration.enablePipelining = false
            configuration.enableErrorHandling = false  // HTTPAPIHandler answers them, in their turn
            configuration.enableResponseHeaderValidation = false
            let operations = channel.pipeline.syncOperations
            let upgraded = try operations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            let upgradeHandler = try operations.handler(type: NIOTypedHTTPServerUpgradeHandler<UpgradeResult>.self)
            try operations.addHandler(
                HTTPRequestDeadlineHandler(
                    requestTimeout: settings.requestTimeout, idleTimeout: settings.idleTimeout, logger: logger),
                position: .before(upgradeHandler))
            // Before the validator and the upgrader: their answers pass back through it, in their turn.
            try operations.addHandler(HTTPAPIHandler(core: settings.api), position: .before(upgradeHandler))
            try operations.addHandler(WebSocketHandshakeValidator(), position: .before(upgradeHandler))
            // Before the response encoder (which comes first): its raw answer must not pass through the encoder.
            let encoder = try operations.handler(type: HTTPResponseEncoder.self)
            try operations.addHandler(HTTP09RequestGuard(), position: .before(encoder))
            return Value(upgradeResult: upgraded, channel: channel)
        }
    }

    /// Turns an upgraded channel into a Pusher WebSocket: our handler reads and writes frames on this loop.
    private static func becomeWebSocket(
        _ channel: any Channel, head: HTTPRequestHead, apps: AppDirectory, settings: Settings, logger: Logger
    ) throws -> UpgradeResult {
        let operations = channel.pipeline.syncOperations
        for guardHandler in [
            try operations.handler(type: HTTPRequestDeadlineHandler.self) as any RemovableChannelHandler,
            try operations.handler(type: WebSocketHandshakeValidator.self),
            try operations.handler(type: HTTPAPIHandler.self),
        ] {
            operations.removeHandler(guardHandler, promise: nil)
        }
        try channel.syncOptions?.setOption(
            ChannelOptions.writeBufferWaterMark,
            value: .init(low: settings.maxPendingOutboundBytes / 2, high: settings.maxPendingOutboundBytes))
        let (path, query) = split(head.uri)
        let key = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).first.map(String.init) ?? ""
        guard let inbox = apps.inbox(forKey: key) else {
            try operations.addHandler(
                UnknownKeyRefusal(
                    key: key, remote: channel.remoteAddress, refusals: apps.refusals, closeGrace: settings.closeGrace,
                    logger: logger))
            return .webSocket
        }
        try operations.addHandler(
            WebSocketConnectionHandler(
                id: inbox.nextConnectionID(), inbox: inbox, appKey: key, protocolVersion: query["protocol"],
                maxMessageBytes: settings.maxMessageBytes,
                deflate: settings.compression ? PerMessageDeflate.negotiate(head.headers) : nil,
                closeGrace: settings.closeGrace, logger: logger,
                info: ConsoleConnectionInfo(head: head, query: query, remote: channel.remoteAddress)))
        return .webSocket
    }

    /// The path and the decoded query parameters of a request target. The first of a repeated name wins.
    static func split(_ uri: String) -> (path: Substring, query: [String: String]) {
        let (path, query) = splitQuery(uri)
        return (Substring(path), query.dictionary)
    }

    /// The path and the query parameters of a request target, as a list.
    static func splitQuery(_ uri: String) -> (path: String, query: QueryParameters) {
        var uri = uri
        return uri.withUTF8 { bytes in
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else {
                return (String(decoding: bytes, as: UTF8.self), QueryParameters([:]))
            }
            return (
                String(decoding: UnsafeBufferPointer(rebasing: bytes[..<mark]), as: UTF8.self),
                QueryParameters(pairs: QueryParameters.parse(UnsafeBufferPointer(rebasing: bytes[(mark + 1)...])))
            )
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .webSocket:
                return
            case .notUpgraded(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            }
        } catch {
            // Malformed HTTP (already answered with 400), a refused handshake, or a socket that went away.
            logger.debug("connection ended before a request was served", metadata: ["error": "\(error)"])
            try? await value.channel.close()
        }
    }

    /// NIO upgrades only a connection's first request: a later one asking for a WebSocket is redirected to the
    /// same URL with `Connection: close`, so the client retries on a fresh connection (as Hummingbird does).
    private static func redirectingLateUpgrades(_ responder: @escaping HTTPChannelHandler.Responder)
        -> HTTPChannelHandler.Responder
    {
        struct RedirectCloseError: Error {}
        return { request, responseWriter, channel in
            if request.headers[.upgrade]?.lowercased() == "websocket" {
                var location = request.uri.path
                if let query = request.uri.query { location += "?\(query)" }
                try await responseWriter.writeResponse(
                    HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: location]))
                throw RedirectCloseError()
            }
            try await responder(ConsolePeer.tagging(request, channel: channel), responseWriter, channel)
        }
    }
}
