import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import PusherProtocol

/// One connection of the embedded server: HTTP/1.1 for the API (``HTTPAPIHandler`` over ``HTTPAPICore``, on the
/// connection's event loop) and for `/health`, `/metrics`, the console feed and the demo auth endpoint (served by
/// Hummingbird's router), or a WebSocket on `/app/{key}` served by ``WebSocketConnectionHandler`` on the
/// connection's event loop.
///
/// Modelled on HummingbirdWebSocket's `HTTP1WebSocketUpgradeChannel`, but the upgrade installs our channel
/// handler instead of a task and an async stream per connection. The guards in front of the upgrader (deadlines,
/// handshake validation, the HTTP/0.9 guard, water marks) are ``WebSocketServerPipeline``'s, shared with the proxy;
/// this listener adds ``HTTPAPIHandler``, which serves the API, keeps every answer in request order and answers
/// malformed HTTP with 400 (431 for oversized headers) and a close.
struct PusherServerChannel: ServerChildChannel, HTTPChannelHandler {
    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<WebSocketServerPipeline.Result>
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

        var guards: WebSocketServerPipeline.Guards {
            .init(
                maxMessageBytes: maxMessageBytes, maxPendingOutboundBytes: maxPendingOutboundBytes,
                requestTimeout: requestTimeout, idleTimeout: idleTimeout, endpoints: .app)
        }
    }

    let responder: HTTPChannelHandler.Responder
    /// The apps served: a WebSocket for `/app/{key}` goes to the inbox of the app with that key.
    let apps: AppDirectory
    let settings: Settings
    /// Each event loop's flush of the HTTP API's answers at the end of its turn.
    let turnFlushes = TurnFlush.Loops()

    init(responder: @escaping HTTPChannelHandler.Responder, apps: AppDirectory, settings: Settings) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.apps = apps
        self.settings = settings
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let settings = self.settings
            let apps = self.apps
            // On the connection's loop (the child channel's initializer runs there).
            let turnFlush = turnFlushes.on(channel.eventLoop)
            let upgraded = try WebSocketServerPipeline.configure(
                channel, guards: settings.guards, logger: logger,
                httpHandler: { HTTPAPIHandler(core: settings.api, deadline: $0, turnFlush: turnFlush) },
                shouldUpgrade: { channel, head in
                    // WebSocketHandshakeValidator has refused every handshake that must not pass.
                    var headers = HTTPHeaders()
                    if settings.compression, let deflate = PerMessageDeflate.negotiate(head.headers) {
                        headers.add(name: "Sec-WebSocket-Extensions", value: deflate.responseHeader)
                    }
                    return channel.eventLoop.makeSucceededFuture(headers)
                },
                upgraded: { channel, head in
                    try Self.becomeWebSocket(channel, head: head, apps: apps, settings: settings, logger: logger)
                },
                httpWatch: { channel in ConsoleClientWatch(channel: channel) })
            return Value(upgradeResult: upgraded, channel: channel)
        }
    }

    /// Turns an upgraded channel into a Pusher WebSocket: our handler reads and writes frames on this loop.
    private static func becomeWebSocket(
        _ channel: any Channel, head: HTTPRequestHead, apps: AppDirectory, settings: Settings, logger: Logger
    ) throws {
        let operations = channel.pipeline.syncOperations
        // WebSocketHandshakeValidator has refused a query that breaks the rule (400).
        let (path, query) = (try? URLQuery.split(target: head.uri)) ?? (head.uri.prefix { $0 != "?" }, URLQuery())
        let key = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).first.map(String.init) ?? ""
        guard let inbox = apps.inbox(forKey: key) else {
            try operations.addHandler(
                UnknownKeyRefusal(
                    key: key, remote: channel.remoteAddress, refusals: apps.refusals, closeGrace: settings.closeGrace,
                    logger: logger))
            return
        }
        try operations.addHandler(
            WebSocketConnectionHandler(
                id: inbox.nextConnectionID(), inbox: inbox, appKey: key, protocolVersion: query["protocol"],
                maxMessageBytes: settings.maxMessageBytes,
                deflate: settings.compression ? PerMessageDeflate.negotiate(head.headers) : nil,
                closeGrace: settings.closeGrace, logger: logger,
                info: ConsoleConnectionInfo(head: head, query: query, remote: channel.remoteAddress)))
    }

    func handle(value: Value, logger: Logger) async {
        await WebSocketServerPipeline.handle(value.upgradeResult, channel: value.channel, logger: logger) { http in
            await handleHTTP(asyncChannel: http, logger: logger)
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
