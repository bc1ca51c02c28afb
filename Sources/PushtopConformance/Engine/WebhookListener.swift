import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import PusherProtocol
import Synchronization

/// An HTTP endpoint where the server under test posts its webhooks: every request is kept, with the status it was
/// answered, and cases can ask it to fail chosen requests (to see retries).
public final class WebhookListener: Sendable {
    /// One request the listener received.
    public struct Received: Sendable {
        /// Seconds since the listener started.
        public var at: Double
        public var method: String
        public var path: String
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: [UInt8]
        /// The status the listener answered.
        public var status: Int

        public var bodyText: String { String(decoding: body, as: UTF8.self) }
        public var json: JSONValue? { JSONValue.parseIfJSON(bodyText) }
        /// The `events` array of a Pusher webhook (empty when the body has none).
        public var events: [JSONValue] { json?["events"]?.arrayValue ?? [] }
    }

    struct Failure {
        var matches: @Sendable (Received) -> Bool
        var status: Int
        var remaining: Int
    }

    struct Waiter {
        var id: Int
        var predicate: @Sendable (Received) -> Bool
        var continuation: CheckedContinuation<Received?, Never>
    }

    struct State {
        var received: [Received] = []
        var failures: [Failure] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())
    private let started = ContinuousClock.now
    private let channel: any Channel
    /// The address it listens on (`host:port`).
    public let address: String

    private init(channel: any Channel, address: String) {
        self.channel = channel
        self.address = address
    }

    /// Starts listening on `host:port` (port 0 picks a free one).
    public static func start(host: String, port: Int) async throws -> WebhookListener {
        let box = Mutex<WebhookListener?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        WebhookRequestHandler { request in
                            box.withLock { $0 }?.take(request) ?? 503
                        })
                }
            }
            .bind(host: host, port: port).get()
        let boundPort = channel.localAddress?.port ?? port
        let shown = host.contains(":") ? "[\(host)]" : host
        let listener = WebhookListener(channel: channel, address: "\(shown):\(boundPort)")
        box.withLock { $0 = listener }
        return listener
    }

    /// Stops listening.
    public func stop() async {
        try? await channel.close()
    }

    /// Every request so far.
    public var received: [Received] { state.withLock { $0.received } }

    /// Answers the next `count` requests that match with `status` (a receiver that is down).
    public func fail(_ count: Int, status: Int = 500, where matches: @escaping @Sendable (Received) -> Bool) {
        state.withLock { $0.failures.append(Failure(matches: matches, status: status, remaining: count)) }
    }

    /// The first request (received before or within `timeout` seconds) that matches.
    public func waitFor(_ timeout: Double, _ predicate: @escaping @Sendable (Received) -> Bool) async -> Received? {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
            self?.expire(id)
        }
        defer { timer.cancel() }
        // Continuations are resumed outside the lock (resuming takes the task's own lock), as in ProbeSocket.
        return await withCheckedContinuation { continuation in
            let hit = state.withLock { s -> Received? in
                if let hit = s.received.first(where: predicate) { return hit }
                s.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
                return nil
            }
            if let hit { continuation.resume(returning: hit) }
        }
    }

    private func expire(_ id: Int) {
        let expired = state.withLock { s -> Waiter? in
            guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return s.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: nil)
    }

    /// Seconds since the listener started.
    public var now: Double { ProbeSocket.seconds(ContinuousClock.now - started) }

    fileprivate func take(_ request: WebhookRequestHandler.Request) -> Int {
        var received = Received(
            at: now, method: request.method, path: request.path, headers: request.headers,
            body: request.body, status: 200)
        let (status, matched) = state.withLock { s -> (Int, [Waiter]) in
            if let index = s.failures.firstIndex(where: { $0.remaining > 0 && $0.matches(received) }) {
                s.failures[index].remaining -= 1
                received.status = s.failures[index].status
            }
            s.received.append(received)
            var waiting: [Waiter] = []
            var matched: [Waiter] = []
            for waiter in s.waiters {
                if waiter.predicate(received) {
                    matched.append(waiter)
                } else {
                    waiting.append(waiter)
                }
            }
            s.waiters = waiting
            return (received.status, matched)
        }
        for waiter in matched { waiter.continuation.resume(returning: received) }
        return status
    }
}

/// Collects one HTTP request (up to 4 MiB) and answers it with the status the listener chooses.
final class WebhookRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    struct Request {
        var method: String
        var path: String
        var headers: [String: String]
        var body: [UInt8]
    }

    private let answer: @Sendable (Request) -> Int
    private var request: Request?
    private var tooLarge = false

    init(answer: @escaping @Sendable (Request) -> Int) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            request = Request(method: head.method.rawValue, path: head.uri, headers: headers, body: [])
            tooLarge = false
        case .body(var buffer):
            if (request?.body.count ?? 0) + buffer.readableBytes > 4 << 20 {
                tooLarge = true
            } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
                request?.body += bytes
            }
        case .end:
            guard let request else { return }
            self.request = nil
            let status = tooLarge ? 413 : answer(request)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: "0")
            let head = HTTPResponseHead(
                version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
