import Foundation
import NIOCore
import NIOHTTP1
import PusherProtocol

/// Serves the HTTP API's hot routes, `POST /apps/{id}/events` and `/batch_events`, where the bytes arrive: on the
/// connection's event loop, with no task, router or body stream per request. The signature, `body_md5`, the JSON and
/// Pusher's limits are checked here; the events go to the hub through its inbox, and the answer (`{}`, or Pusher's
/// status and message) is written at once. Everything else — other routes, and events asking for `info` (which
/// needs the hub's counts) — passes on, untouched, to Hummingbird.
///
/// - Important: It sits before NIO's upgrade handler, which decides on a connection's first *other* request; a
///   WebSocket upgrade is never a `POST`, so upgrades are unaffected.
final class APIFastPath: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the fast path needs of the app a request names.
    struct App: Sendable {
        var verifier: APIRequestVerifier
        var limits: PusherLimits
        var inbox: HubInbox
        /// The app's debug feed (`api_message`, `api_error`).
        var console: ConsoleHub
    }

    enum Route {
        case events
        case batch
    }

    private enum State {
        case idle
        /// A request that is not ours: its parts go on.
        case passing
        /// Ours: its body is gathered here.
        case collecting(HTTPRequestHead, Route, App, ByteBuffer, tooLarge: Bool)
    }

    private let lookup: @Sendable (String) -> App?
    private var state = State.idle
    static let maxBodyBytes = 1 << 20

    /// - Parameter lookup: the app of an app id in a path, or `nil` (then the request goes on, and is answered 404).
    init(lookup: @escaping @Sendable (String) -> App?) {
        self.lookup = lookup
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if head.method == .POST, let (appID, route) = Self.route(head.uri), let app = lookup(appID) {
                let capacity = min(head.headers["content-length"].first.flatMap { Int($0) } ?? 256, Self.maxBodyBytes)
                state = .collecting(
                    head, route, app, context.channel.allocator.buffer(capacity: capacity), tooLarge: false)
            } else {
                state = .passing
                context.fireChannelRead(data)
            }
        case .body(var part):
            switch state {
            case .collecting(let head, let route, let app, var body, let tooLarge):
                let over = tooLarge || body.readableBytes + part.readableBytes > Self.maxBodyBytes
                if !over { body.writeBuffer(&part) }
                state = .collecting(head, route, app, body, tooLarge: over)
            default:
                context.fireChannelRead(data)
            }
        case .end:
            switch state {
            case .collecting(let head, let route, let app, let body, let tooLarge):
                state = .idle
                if tooLarge {
                    let failure = APIFailure(
                        status: 413, message: "Request body exceeds \(Self.maxBodyBytes) bytes", rule: "max_body_bytes")
                    report(failure, context, head, app)
                    respond(context, head, status: 413, text: failure.message + "\n")
                } else {
                    serve(context, head, route, app, body)
                }
            default:
                state = .idle
                context.fireChannelRead(data)
            }
        }
    }

    /// `/apps/{id}/events` or `/apps/{id}/batch_events` (a query may follow): the app id and the route.
    static func route(_ uri: String) -> (String, Route)? {
        var uri = uri
        return uri.withUTF8 { bytes -> (String, Route)? in
            let end = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
            let prefix = "/apps/".utf8
            guard end > prefix.count, bytes[..<prefix.count].elementsEqual(prefix) else { return nil }
            guard let slash = bytes[prefix.count..<end].firstIndex(of: UInt8(ascii: "/")), slash > prefix.count
            else { return nil }
            let tail = bytes[(slash + 1)..<end]
            let route: Route
            if tail.elementsEqual("events".utf8) {
                route = .events
            } else if tail.elementsEqual("batch_events".utf8) {
                route = .batch
            } else {
                return nil
            }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[prefix.count..<slash]), as: UTF8.self), route)
        }
    }

    private func serve(
        _ context: ChannelHandlerContext, _ head: HTTPRequestHead, _ route: Route, _ app: App,
        _ body: ByteBuffer
    ) {
        let bytes = Array(body.readableBytesView)
        let (path, query) = PusherServerChannel.splitQuery(head.uri)
        let events: EventsBody
        do {
            try app.verifier.verify(method: "POST", path: path, query: query, body: bytes)
            switch route {
            case .events: events = try EventsBody.events(bytes)
            case .batch: events = try EventsBody.batch(bytes, limits: app.limits)
            }
        } catch {
            report(error, context, head, app)
            return respond(context, head, status: error.status, text: error.message + "\n")
        }
        if events.asksForInfo {
            // The counts are the hub's to give: Hummingbird's route asks it and answers.
            context.fireChannelRead(wrapInboundOut(.head(head)))
            context.fireChannelRead(wrapInboundOut(.body(body)))
            context.fireChannelRead(wrapInboundOut(.end(nil)))
            return
        }
        do {
            for request in events.requests { try app.limits.check(request) }
        } catch {
            let failure = APIFailure(status: error.httpStatus, message: error.description, rule: "publish_limits")
            report(failure, context, head, app)
            return respond(context, head, status: error.httpStatus, text: error.description + "\n")
        }
        if app.console.isActive {
            app.console.apiMessages(
                events.requests, batch: route == .batch,
                caller: context.remoteAddress.map(ConsoleConnectionInfo.describe))
        }
        app.inbox.publish(events.requests, on: context.eventLoop)
        respondAccepted(context, head)
    }

    private func report(_ failure: APIFailure, _ context: ChannelHandlerContext, _ head: HTTPRequestHead, _ app: App) {
        guard app.console.isActive else { return }
        app.console.apiError(
            failure, method: "POST", path: String(head.uri.prefix { $0 != "?" }),
            caller: context.remoteAddress.map(ConsoleConnectionInfo.describe))
    }

    /// `200 {}`: the answer to almost every request, written from parts made once.
    private func respondAccepted(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        guard head.isKeepAlive, head.version == .http1_1 else {
            return respond(context, head, status: 200, text: "{}", json: true)
        }
        context.write(wrapOutboundOut(.head(Self.acceptedHead)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(Self.acceptedBody))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private static let acceptedHead = HTTPResponseHead(
        version: .http1_1, status: .ok,
        headers: HTTPHeaders([("content-type", "application/json"), ("content-length", "2")]))
    private static let acceptedBody = ByteBuffer(string: "{}")

    private func respond(
        _ context: ChannelHandlerContext, _ head: HTTPRequestHead, status: Int, text: String,
        json: Bool = false
    ) {
        let keepAlive = head.isKeepAlive
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: json ? "application/json" : "text/plain; charset=utf-8")
        headers.add(name: "content-length", value: String(text.utf8.count))
        if !keepAlive { headers.add(name: "connection", value: "close") }
        let response = HTTPResponseHead(
            version: head.version, status: HTTPResponseStatus(statusCode: status),
            headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil)
        let done = context.writeAndFlushWithPromise(wrapOutboundOut(.end(nil)))
        if !keepAlive { done.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) } }
    }
}

extension ChannelHandlerContext {
    fileprivate func writeAndFlushWithPromise(_ data: NIOAny) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        writeAndFlush(data, promise: promise)
        return promise.futureResult
    }
}
