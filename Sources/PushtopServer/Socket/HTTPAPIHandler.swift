import NIOCore
import NIOHTTP1

/// The HTTP side of a connection, on its event loop: serves the HTTP API through ``HTTPAPICore`` and keeps every
/// answer in request order.
///
/// Each request of the connection takes a place in a queue of pending answers as its head arrives (as NIO's
/// `HTTPServerPipelineHandler` keeps one): an API request's answer is written when every earlier answer has been;
/// any other request (`/health`, `/metrics`, the console feed, the demo auth endpoint, a WebSocket handshake) is
/// handed on to the rest of the pipeline when its turn comes, and the next answer waits until that response's end
/// passes back through this handler. So pipelined answers leave in request order whichever requests need the hub
/// and whichever are someone else's; and since an API request is decided (its publishes queued for the hub) as soon
/// as it is read, a connection's publishes reach the hub in its request order.
///
/// Malformed HTTP (the decoder's errors: broken chunked framing, `Content-Length` with `Transfer-Encoding`, two
/// lengths, oversized headers) is answered 400 (431 for headers) in its turn, and the connection is closed. A
/// connection too slow or idle is closed by its ``RequestDeadline``, which this handler keeps.
///
/// - Important: It sits before NIO's upgrade handler, which decides on the first request handed on to it.
final class HTTPAPIHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Requests read ahead of their answers before the handler stops reading.
    static let maxPendingAnswers = 32

    private enum Answer {
        /// Ours, being decided (the hub is answering).
        case pending
        case ready(APIResponse)
        /// Someone else's request: its parts, held until its turn, then handed on (`handedOn`).
        case passed([HTTPServerRequestPart], handedOn: Bool)
        /// The decoder refused what came: 400 or 431, then close.
        case malformed(HTTPResponseStatus, String)
    }

    private struct Entry {
        var answer: Answer
        var version: HTTPVersion
        var keepAlive: Bool
    }

    private enum Reading {
        case idle
        case api(HTTPRequestHead, appID: String?, HTTPAPIRoute, ByteBuffer?)
        /// Someone else's request; its entry's number.
        case passing(Int)
        /// Nothing more is read: the connection is ending.
        case stopped
    }

    private let core: HTTPAPICore
    private let deadline: RequestDeadline
    /// This loop's flush at the end of its turn: answers leave together, after the turn's reads (``TurnFlush``).
    private let turnFlush: TurnFlush
    private var entries = CircularBuffer<Entry>(initialCapacity: 4)
    /// The number of `entries.first` (numbers grow by one per request).
    private var firstNumber = 0
    private var reading = Reading.idle
    /// Where a handed-on request's answer is.
    private var responseProgress = HTTPResponseProgress()
    private var heldRead = false
    private var open = true
    /// The peer's address, asked once per connection (each ask is a `getpeername` system call).
    private var peer: SocketAddress??

    /// - Parameter turnFlush: the connection's event loop's (``TurnFlush/Loops/on(_:)``).
    init(core: HTTPAPICore, deadline: RequestDeadline, turnFlush: TurnFlush) {
        self.core = core
        self.deadline = deadline
        self.turnFlush = turnFlush
    }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline.start(context: context)
    }

    // MARK: Reading requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        deadline.read(part, context: context)
        switch (reading, part) {
        case (.stopped, _):
            return
        case (_, .head(let head)):
            readHead(head, part: part, context: context)
        case (.api(let head, let appID, let route, var body), .body(var bytes)):
            reading = .idle  // the state's reference goes, so the body grows in place
            if let held = body?.readableBytes, held + bytes.readableBytes <= HTTPAPICore.maxBodyBytes {
                body!.writeBuffer(&bytes)
            } else {
                body = nil  // over the limit: the rest is read and dropped, the answer is 413
            }
            reading = .api(head, appID: appID, route, body)
        case (.api(let head, let appID, let route, let body), .end):
            readEnd(head, appID: appID, route: route, body: body, context: context)
        case (.passing(let number), _):
            readPassing(number, part: part, data: data, context: context)
        case (.idle, _):
            // Unreachable in order (a body or end without a head): nothing to do.
            return
        }
    }

    /// A request's head: an API request starts being read, any other takes its place in the queue to be handed on.
    @inline(__always)
    private func readHead(_ head: HTTPRequestHead, part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        let path = head.uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(head.uri[..<$0]) } ?? head.uri
        if let (appID, route) = HTTPAPIRoute.match(path: path) {
            let length = head.headers.first(name: "content-length").flatMap { Int($0) } ?? 256
            let capacity = min(max(length, 0), HTTPAPICore.maxBodyBytes)
            reading = .api(head, appID: appID, route, context.channel.allocator.buffer(capacity: capacity))
        } else {
            let number = append(
                Entry(answer: .passed([part], handedOn: false), version: head.version, keepAlive: true))
            reading = .passing(number)
            drain(context: context)
        }
    }

    /// An API request read in full: decided now, its answer written in its turn.
    @inline(__always)
    private func readEnd(
        _ head: HTTPRequestHead, appID: String?, route: HTTPAPIRoute, body: ByteBuffer?, context: ChannelHandlerContext
    ) {
        reading = .idle
        let number = append(Entry(answer: .pending, version: head.version, keepAlive: head.isKeepAlive))
        let decision = core.decide(
            HTTPAPICore.Request(
                method: head.method, uri: head.uri, appID: appID, route: route,
                body: body.map { Array($0.readableBytesView) }, remoteAddress: remoteAddress(context),
                loop: context.eventLoop))
        switch decision {
        case .answer(let response):
            entries[offset: number - firstNumber].answer = .ready(response)
        case .later(let work):
            let promise = context.eventLoop.makePromise(of: APIResponse.self)
            promise.completeWithTask { await work() }
            promise.futureResult.assumeIsolated().whenSuccess { [self] response in
                guard open, number >= firstNumber, number - firstNumber < entries.count else { return }
                entries[offset: number - firstNumber].answer = .ready(response)
                drain(context: context)
            }
        }
        if !head.isKeepAlive { reading = .stopped }
        drain(context: context)
    }

    /// A part of someone else's request: handed on if its head was, held with the others otherwise.
    @inline(__always)
    private func readPassing(_ number: Int, part: HTTPServerRequestPart, data: NIOAny, context: ChannelHandlerContext) {
        let index = number - firstNumber
        if case .end = part { reading = .idle }
        guard index >= 0, index < entries.count,
            case .passed(var parts, let handedOn) = entries[offset: index].answer
        else { return }
        if handedOn {
            context.fireChannelRead(data)
        } else {
            parts.append(part)
            entries[offset: index].answer = .passed(parts, handedOn: false)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Answers written in this read are flushed at the turn's end (`drain`); nothing else is written here.
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if case .stopped = reading { return }
        let status: HTTPResponseStatus = parseError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        let message = "Malformed HTTP request: \(parseError)"
        // A request handed on whose rest will never come cannot be answered by its handler: answer now, if its
        // response has not begun.
        if case .passing(let number) = reading, number == firstNumber,
            case .passed(_, handedOn: true)? = entries.first?.answer
        {
            let response = APIResponse(status: Int(status.code), body: message + "\n", json: false)
            finish(responseProgress.started ? nil : response, version: .http1_1, context: context)
            return
        }
        reading = .stopped
        _ = append(Entry(answer: .malformed(status, message), version: .http1_1, keepAlive: false))
        drain(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        open = false
        entries.removeAll()
        deadline.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        open = false
        entries.removeAll()
        deadline.stop()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        deadline.quiesce(event, context: context)
        context.fireUserInboundEventTriggered(event)
    }

    private func remoteAddress(_ context: ChannelHandlerContext) -> SocketAddress? {
        if let peer { return peer }
        let address = context.remoteAddress
        peer = .some(address)
        return address
    }

    // MARK: Writing answers

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard responseProgress.write(unwrapOutboundIn(data), context: context, data: data, promise: promise) else {
            return
        }
        deadline.answerEnded(context: context)
        // The handed-on request at the front has its answer: the next may go.
        if case .passed(_, handedOn: true)? = entries.first?.answer {
            removeFirst()
            context.eventLoop.assumeIsolated().execute { [self] in
                if open { drain(context: context) }
            }
        }
    }

    func read(context: ChannelHandlerContext) {
        if entries.count >= Self.maxPendingAnswers {
            heldRead = true
        } else {
            context.read()
        }
    }

    /// Writes every answer whose turn has come; hands on the next request of someone else.
    private func drain(context: ChannelHandlerContext) {
        var wrote = false
        loop: while open, let first = entries.first {
            switch first.answer {
            case .pending:
                break loop
            case .ready(let response):
                removeFirst()
                if !first.keepAlive {
                    finish(response, version: first.version, context: context)
                    return
                }
                response.write(to: context, version: first.version, keepAlive: true)
                deadline.answerEnded(context: context)
                wrote = true
            case .passed(let parts, let handedOn):
                if handedOn { break loop }
                entries[offset: 0].answer = .passed([], handedOn: true)
                if wrote {
                    context.flush()
                    wrote = false
                }
                for part in parts { context.fireChannelRead(wrapInboundOut(part)) }
                context.fireChannelReadComplete()
                break loop
            case .malformed(let status, let message):
                finish(
                    APIResponse(status: Int(status.code), body: message + "\n", json: false), version: first.version,
                    context: context)
                return
            }
        }
        if wrote { turnFlush.flushAtTurnEnd(context) }
        if heldRead, entries.count < Self.maxPendingAnswers {
            heldRead = false
            context.read()
        }
    }

    /// Writes the last answer and closes once it is out.
    private func finish(_ response: APIResponse?, version: HTTPVersion, context: ChannelHandlerContext) {
        open = false
        reading = .stopped
        entries.removeAll()
        let written = context.eventLoop.makePromise(of: Void.self)
        if let response {
            response.write(to: context, version: version, keepAlive: false, promise: written)
        } else {
            written.succeed()
        }
        context.flush()
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    private func append(_ entry: Entry) -> Int {
        entries.append(entry)
        return firstNumber + entries.count - 1
    }

    private func removeFirst() {
        entries.removeFirst()
        firstNumber += 1
    }
}
