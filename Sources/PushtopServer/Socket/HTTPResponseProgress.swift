import NIOCore
import NIOHTTP1

/// Whether an answer is under way on an HTTP/1 connection, kept from the response parts written: a final
/// (non-1xx) head begins one and its end finishes it. A handler that may have to answer in the middle of a
/// connection (a request broken halfway, a malformed one) can only do so between two answers.
struct HTTPResponseProgress {
    /// A final head went out, not yet its end.
    private(set) var started = false

    /// Writes `data` (a response part) on, noting where the answer is; returns whether it was an answer's end.
    mutating func write(
        _ part: HTTPServerResponsePart, context: ChannelHandlerContext, data: NIOAny,
        promise: EventLoopPromise<Void>?
    ) -> Bool {
        if case .head(let head) = part, head.status.code >= 200 { started = true }
        context.write(data, promise: promise)
        guard case .end = part else { return false }
        started = false
        return true
    }
}
