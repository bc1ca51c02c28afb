import Foundation
import NIOCore
import NIOPosix
import PusherProtocol
import Synchronization

/// A tiny HTTP/1.1 server on loopback that plays the `pushtop serve` debug feed from a script, for the feed
/// client's unit tests: each connection gets the next ``Answer`` (the last one repeats), and every request's path
/// and query are kept, with whether its signature verifies with ``secret`` (the server's rule, seams.md).
final class ConsoleTestFeedServer: Sendable {
    enum Answer: Sendable {
        /// A status and a body, then the connection closes.
        case status(Int, String, contentType: String = "application/json")
        /// `200 text/event-stream`, then each piece written as its own chunk (pieces may split lines anywhere);
        /// `close`: the stream ends after them, else it stays open until the test ends.
        case stream([String], close: Bool)
    }

    struct Request: Sendable {
        var path: String
        var query: [String: String]
        var signed: Bool
    }

    let port: Int
    let secret: String
    private let channel: any Channel
    private let state: Mutex<(answers: [Answer], requests: [Request])>

    private init(port: Int, secret: String, channel: any Channel, answers: [Answer]) {
        self.port = port
        self.secret = secret
        self.channel = channel
        self.state = Mutex((answers, []))
    }

    /// Serves `answers` on a free loopback port.
    static func start(secret: String = ConsoleFeedClientTests.secret, answers: [Answer]) async throws
        -> ConsoleTestFeedServer
    {
        let box = StateBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Handler(box: box, secret: secret))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = ConsoleTestFeedServer(
            port: channel.localAddress?.port ?? 0, secret: secret, channel: channel, answers: answers)
        box.server.withLock { $0 = server }
        return server
    }

    var requests: [Request] { state.withLock { $0.requests } }

    func stop() async {
        try? await channel.close()
    }

    fileprivate func next(for request: Request) -> Answer {
        state.withLock { s in
            s.requests.append(request)
            return s.answers.count > 1 ? s.answers.removeFirst() : s.answers[0]
        }
    }

    fileprivate final class StateBox: Sendable {
        let server = Mutex<ConsoleTestFeedServer?>(nil)
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        // Confined to the child channel's event loop.
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let box: StateBox
        let secret: String
        var head: [UInt8] = []
        var answered = false

        init(box: StateBox, secret: String) {
            self.box = box
            self.secret = secret
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            head += Array(buffer: unwrapInboundIn(data))
            guard let end = String(decoding: head, as: UTF8.self).range(of: "\r\n\r\n") else { return }
            answered = true
            let text = String(String(decoding: head, as: UTF8.self)[..<end.lowerBound])
            let target = text.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            let request = Self.parse(target: target, secret: secret)
            guard let server = box.server.withLock({ $0 }) else { return }
            let answer = server.next(for: request)
            let channel = context.channel
            switch answer {
            case .status(let code, let body, let contentType):
                let bytes = Array(body.utf8)
                let response =
                    "HTTP/1.1 \(code) X\r\nContent-Type: \(contentType)\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
                channel.writeAndFlush(ByteBuffer(bytes: Array(response.utf8) + bytes)).whenComplete { _ in
                    channel.close(promise: nil)
                }
            case .stream(let pieces, let close):
                var out = Array(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
                        .utf8)
                channel.writeAndFlush(ByteBuffer(bytes: out), promise: nil)
                // Each piece in its own chunk, written a little apart so that the client reads them separately.
                for (i, piece) in pieces.enumerated() {
                    let bytes = Array(piece.utf8)
                    out = Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + Array("\r\n".utf8)
                    let chunk = ByteBuffer(bytes: out)
                    channel.eventLoop.scheduleTask(in: .milliseconds(Int64(5 * (i + 1)))) {
                        channel.writeAndFlush(chunk, promise: nil)
                    }
                }
                if close {
                    channel.eventLoop.scheduleTask(in: .milliseconds(Int64(5 * (pieces.count + 1)))) {
                        channel.writeAndFlush(ByteBuffer(bytes: Array("0\r\n\r\n".utf8))).whenComplete { _ in
                            channel.close(promise: nil)
                        }
                    }
                }
            }
        }

        static func parse(target: String, secret: String) -> Request {
            let parts = target.split(separator: "?", maxSplits: 1)
            let path = parts.first.map(String.init) ?? "/"
            var query: [String: String] = [:]
            if parts.count > 1 {
                for pair in parts[1].split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1).map {
                        String($0).removingPercentEncoding ?? String($0)
                    }
                    query[kv[0]] = kv.count > 1 ? kv[1] : ""
                }
            }
            let expected = APIRequestSignature.expectedSignature(
                method: "GET", path: path, secret: secret, parameters: query)
            return Request(path: path, query: query, signed: query["auth_signature"] == expected)
        }
    }
}
