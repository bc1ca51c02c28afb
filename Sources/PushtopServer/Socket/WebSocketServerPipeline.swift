import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// The pipeline of every pushtop listener that takes WebSockets from strangers: `serve`'s and `pushtop proxy`'s. One
/// place, so that both answer a stranger alike and a guard added here guards both.
///
/// Before NIO's upgrader: the listener's own HTTP handler if it has one (`serve`'s ``HTTPAPIHandler``, which also
/// answers malformed HTTP; without one ``MalformedRequestResponder`` answers it alike: 400 or 431 in its turn), which
/// keeps the connection's ``RequestDeadline`` (header, body and idle timeouts), and ``WebSocketHandshakeValidator``
/// (400/404/426 for broken handshakes). Before the HTTP decoder, ``HTTP09RequestGuard`` answers an HTTP/0.9 request
/// line, which the decoder would wait on forever. On upgrade the guards leave, the socket gets its write-buffer water
/// marks, and the listener's `upgraded` closure installs its WebSocket handler; a plain request is handed to
/// Hummingbird as an async channel.
package enum WebSocketServerPipeline {
    /// The name the listener's own HTTP handler is added under, so that the upgrade removes it whatever its type.
    private static let httpHandlerName = "pushtop.http-handler"

    /// What the first request of a connection became.
    package enum Result: Sendable {
        /// A WebSocket, now owned by the handlers `upgraded` installed.
        case webSocket
        /// Plain HTTP, handed to Hummingbird.
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    /// The limits every connection gets.
    package struct Guards: Sendable {
        package var maxMessageBytes: Int
        /// The write buffer's high water mark (the low one is half): a reader that falls behind is seen as unwritable.
        package var maxPendingOutboundBytes: Int
        package var requestTimeout: TimeAmount
        package var idleTimeout: TimeAmount
        /// Where WebSockets are taken (``WebSocketHandshakeValidator/Endpoints``).
        package var endpoints: WebSocketHandshakeValidator.Endpoints

        package init(
            maxMessageBytes: Int, maxPendingOutboundBytes: Int, requestTimeout: TimeAmount, idleTimeout: TimeAmount,
            endpoints: WebSocketHandshakeValidator.Endpoints
        ) {
            self.maxMessageBytes = maxMessageBytes
            self.maxPendingOutboundBytes = maxPendingOutboundBytes
            self.requestTimeout = requestTimeout
            self.idleTimeout = idleTimeout
            self.endpoints = endpoints
        }
    }

    /// Configures a new connection's pipeline; the future says what its first request became.
    ///
    /// - Parameters:
    ///   - httpHandler: the listener's handler of plain HTTP before the upgrader (removed on upgrade), or `nil`.
    ///   - refused: called on the loop for each handshake the validator refuses (status and reason).
    ///   - shouldUpgrade: the extra response headers of an accepted handshake, or a failed future to refuse it
    ///     (the socket is then closed).
    ///   - upgraded: installs the WebSocket's handlers on the upgraded channel.
    ///   - httpWatch: a handler put first in a plain HTTP connection's pipeline (the console feed's), or `nil`.
    package static func configure(
        _ channel: any Channel, guards: Guards, logger: Logger,
        httpHandler: ((RequestDeadline) -> any ChannelHandler & RemovableChannelHandler)? = nil,
        refused: (@Sendable (HTTPResponseStatus, String, any Channel) -> Void)? = nil,
        shouldUpgrade: @escaping @Sendable (any Channel, HTTPRequestHead) -> EventLoopFuture<HTTPHeaders?>,
        upgraded: @escaping @Sendable (any Channel, HTTPRequestHead) throws -> Void,
        httpWatch: (@Sendable (any Channel) -> any ChannelHandler)? = nil
    ) throws -> EventLoopFuture<Result> {
        let upgrader = NIOTypedWebSocketServerUpgrader<Result>(
            maxFrameSize: guards.maxMessageBytes,
            enableAutomaticErrorHandling: false,
            shouldUpgrade: shouldUpgrade,
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    try leaveGuards(channel, guards: guards)
                    try upgraded(channel, head)
                    return .webSocket
                }
            }
        )
        let upgradeConfiguration = NIOTypedHTTPServerUpgradeConfiguration<Result>(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                    try operations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
                    if let httpWatch { try operations.addHandler(httpWatch(channel), position: .first) }
                    return .notUpgraded(
                        try NIOAsyncChannel(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true)))
                }
            }
        )
        var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgradeConfiguration)
        configuration.enablePipelining = false
        // Malformed requests are answered in their turn: by the listener's own HTTP handler, or by ours (NIO's
        // answered ahead of the answers still owed, and 400 for oversized headers).
        configuration.enableErrorHandling = false
        configuration.enableResponseHeaderValidation = false
        let operations = channel.pipeline.syncOperations
        let upgradeResult = try operations.configureUpgradableHTTPServerPipeline(configuration: configuration)
        let upgradeHandler = try operations.handler(type: NIOTypedHTTPServerUpgradeHandler<Result>.self)
        // Before the validator and the upgrader: their answers pass back through it, in their turn. It keeps the
        // connection's deadlines.
        let deadline = RequestDeadline(.init(request: guards.requestTimeout, idle: guards.idleTimeout), logger: logger)
        try operations.addHandler(
            httpHandler?(deadline) ?? MalformedRequestResponder(deadline: deadline), name: httpHandlerName,
            position: .before(upgradeHandler))
        try operations.addHandler(
            WebSocketHandshakeValidator(endpoints: guards.endpoints, refused: refused),
            position: .before(upgradeHandler))
        // Before the response encoder (which comes first): its raw answer must not pass through the encoder.
        let encoder = try operations.handler(type: HTTPResponseEncoder.self)
        try operations.addHandler(HTTP09RequestGuard(), position: .before(encoder))
        return upgradeResult
    }

    /// What a listener's `handle(value:)` does with the first request's outcome: a WebSocket is on its own already,
    /// plain HTTP goes to `serveHTTP`, and a connection that failed (malformed HTTP already answered, a refused
    /// handshake, a socket gone) is closed.
    package static func handle(
        _ result: EventLoopFuture<Result>, channel: any Channel, logger: Logger,
        serveHTTP: (NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>) async -> Void
    ) async {
        do {
            switch try await result.get() {
            case .webSocket:
                return
            case .notUpgraded(let http):
                await serveHTTP(http)
            }
        } catch {
            logger.debug("connection ended before a request was served", metadata: ["error": "\(error)"])
            try? await channel.close()
        }
    }

    /// The HTTP guards leave an upgraded channel (a WebSocket's liveness is its handler's business); its write
    /// buffer gets the water marks.
    private static func leaveGuards(_ channel: any Channel, guards: Guards) throws {
        let operations = channel.pipeline.syncOperations
        operations.removeHandler(try operations.handler(type: WebSocketHandshakeValidator.self), promise: nil)
        // The listener's own HTTP handler (or ours), whatever its type, by the name it was added under; its deadlines
        // go with it.
        operations.removeHandler(name: httpHandlerName, promise: nil)
        try channel.syncOptions?.setOption(
            ChannelOptions.writeBufferWaterMark,
            value: .init(low: guards.maxPendingOutboundBytes / 2, high: guards.maxPendingOutboundBytes))
    }
}
