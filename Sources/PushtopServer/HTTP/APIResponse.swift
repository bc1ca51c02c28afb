import NIOCore
import NIOHTTP1
import PusherProtocol

/// An HTTP API answer, as ``HTTPAPICore`` decides it: Pusher's JSON on success, Pusher's status and plain-text
/// message on a refusal. ``write(to:version:keepAlive:)`` is the one renderer.
struct APIResponse: Sendable {
    var status: Int
    var body: String
    var json: Bool
    /// Headers beyond the content's and the connection's (`Allow` on a 405).
    var headers: [(String, String)] = []

    /// `200 {}`: the answer to almost every request.
    static let accepted = APIResponse(status: 200, body: "{}", json: true)

    /// `200` with `value` as JSON.
    static func json(_ value: JSONValue) -> APIResponse {
        APIResponse(status: 200, body: value.jsonString, json: true)
    }

    /// Pusher's status and message (`text/plain`, the message and a line end).
    init(_ failure: APIFailure) {
        self.init(status: failure.status, body: failure.message + "\n", json: false)
    }

    init(status: Int, body: String, json: Bool, headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.json = json
        self.headers = headers
    }

    /// Writes the answer (not flushed) in the request's HTTP version; `Connection: close` when the connection ends.
    /// `promise` completes once the whole answer is written.
    func write(
        to context: ChannelHandlerContext, version: HTTPVersion, keepAlive: Bool,
        promise: EventLoopPromise<Void>? = nil
    ) {
        if keepAlive, version == .http1_1, status == 200, json, body == "{}" {
            context.write(NIOAny(HTTPServerResponsePart.head(Self.acceptedHead)), promise: nil)
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(Self.acceptedBody))), promise: nil)
            context.write(NIOAny(HTTPServerResponsePart.end(nil)), promise: promise)
            return
        }
        let buffer = context.channel.allocator.buffer(string: body)
        var fields = HTTPHeaders()
        fields.add(name: "content-type", value: json ? "application/json" : "text/plain; charset=utf-8")
        fields.add(name: "content-length", value: String(buffer.readableBytes))
        for (name, value) in headers { fields.add(name: name, value: value) }
        if !keepAlive {
            fields.add(name: "connection", value: "close")
        } else if version.major == 1, version.minor == 0 {
            fields.add(name: "connection", value: "keep-alive")
        }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: fields)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.end(nil)), promise: promise)
    }

    private static let acceptedHead = HTTPResponseHead(
        version: .http1_1, status: .ok,
        headers: HTTPHeaders([("content-type", "application/json"), ("content-length", "2")]))
    private static let acceptedBody = ByteBuffer(string: "{}")
}
