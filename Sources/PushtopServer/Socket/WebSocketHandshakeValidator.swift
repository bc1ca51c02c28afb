import NIOCore
import NIOHTTP1
import PusherProtocol

/// Answers a broken WebSocket handshake with an HTTP error before NIO's upgrader sees it, and closes.
///
/// - `Upgrade` other than `websocket`, no `Connection: upgrade`, not `GET`, no valid `Sec-WebSocket-Key`, or a
///   plain request to `/app/{key}`: 400. A handshake to any other path (`/app/{key}/more` too): 404.
/// - `Sec-WebSocket-Version` other than 13: 426 with `Sec-WebSocket-Version: 13` (RFC 6455 section 4.4).
/// - A query that breaks ``URLQuery``'s rule (`?protocol=7&protocol=6`, a bad `%` escape): 400 naming the
///   parameter.
///
/// `serve` and `pushtop proxy` both put it in front of their upgrader (``WebSocketServerPipeline``). Removed from the
/// pipeline when the upgrade succeeds.
package final class WebSocketHandshakeValidator: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    /// Where WebSockets are taken.
    package enum Endpoints: Sendable {
        /// `/app/{key}` only (`serve`).
        case app
        /// `/app/{key}` after any path prefix, `/ws/app/{key}` too (the proxy, which relays the path upstream).
        case appUnderAnyPrefix

        func contains(_ uri: String) -> Bool {
            switch self {
            case .app: return WebSocketHandshakeValidator.isAppEndpoint(uri)
            case .appUnderAnyPrefix:
                let path = uri.prefix { $0 != "?" }
                guard let range = path.range(of: "/app/", options: .backwards) else { return false }
                let key = path[range.upperBound...]
                return !key.isEmpty && !key.contains("/")
            }
        }
    }

    private let endpoints: Endpoints
    private let refused: (@Sendable (HTTPResponseStatus, String, any Channel) -> Void)?
    /// After a refusal the rest of the request is dropped and the socket ends.
    private var refusedOne = false

    /// - Parameter refused: told of each refusal (status and reason), on the loop, before the answer is written.
    package init(
        endpoints: Endpoints = .app, refused: (@Sendable (HTTPResponseStatus, String, any Channel) -> Void)? = nil
    ) {
        self.endpoints = endpoints
        self.refused = refused
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refusedOne { return }
        let part = unwrapInboundIn(data)
        if case .head(let head) = part, let (status, message, headers) = Self.refusal(of: head, endpoints: endpoints) {
            refusedOne = true
            refused?(status, message, context.channel)
            Self.respond(context: context, status: status, message: message, extraHeaders: headers)
            return
        }
        context.fireChannelRead(data)
    }

    /// The response a request gets when it is a broken WebSocket handshake; `nil` when it may pass.
    static func refusal(of head: HTTPRequestHead, endpoints: Endpoints = .app) -> (
        HTTPResponseStatus, String, HTTPHeaders
    )? {
        guard let upgrade = head.headers.first(name: "upgrade") else {
            if head.method == .GET, endpoints.contains(head.uri) {
                return (.badRequest, "This endpoint takes WebSocket connections (Upgrade: websocket)", [:])
            }
            return nil
        }
        guard upgrade.lowercased() == "websocket" else {
            return (.badRequest, "Unsupported upgrade: only websocket is served", [:])
        }
        let connection = head.headers[canonicalForm: "connection"].map { $0.lowercased() }
        guard connection.contains("upgrade") else {
            return (.badRequest, "A WebSocket handshake needs Connection: Upgrade", [:])
        }
        guard head.method == .GET else { return (.badRequest, "A WebSocket handshake must be a GET", [:]) }
        guard endpoints.contains(head.uri) else { return (.notFound, "WebSocket connections go to /app/KEY", [:]) }
        let keys = head.headers["sec-websocket-key"]
        guard keys.count == 1, let key = keys.first, Self.isValidKey(key) else {
            return (.badRequest, "A WebSocket handshake needs one Sec-WebSocket-Key (16 bytes, base64)", [:])
        }
        guard head.headers["sec-websocket-version"] == ["13"] else {
            return (.upgradeRequired, "Only WebSocket version 13 is supported", ["Sec-WebSocket-Version": "13"])
        }
        do {
            _ = try URLQuery.split(target: head.uri)
        } catch {
            return (.badRequest, error.description, [:])
        }
        return nil
    }

    /// Whether `uri` is a WebSocket endpoint: `/app/KEY` (one non-empty path segment after `/app/`) with an optional
    /// query string. `/app/KEY/anything` is not: it gets the router's 404 like any other unknown path.
    static func isAppEndpoint(_ uri: String) -> Bool {
        let path = uri.prefix { $0 != "?" }
        guard path.hasPrefix("/app/") else { return false }
        let key = path.dropFirst("/app/".count)
        return !key.isEmpty && !key.contains("/")
    }

    /// A base64 encoding of 16 bytes: 22 characters of the alphabet and `==`.
    private static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.trimmingSpaces.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        return bytes[..<22].allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                return true
            default: return false
            }
        }
    }

    /// Writes a short plain-text response with `Connection: close`, then closes the socket.
    static func respond(
        context: ChannelHandlerContext, status: HTTPResponseStatus, message: String, extraHeaders: HTTPHeaders = [:]
    ) {
        var headers = extraHeaders
        let body = ByteBuffer(string: message + "\n")
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        context.write(
            NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var view = self[...]
        while view.first == " " { view.removeFirst() }
        while view.last == " " { view.removeLast() }
        return view
    }
}
