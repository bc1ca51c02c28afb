import Logging
import NIOCore
import NIOHTTP1

/// Closes an HTTP connection that is too slow or idle: headers not complete within the request timeout, a body
/// not complete within it after the headers, or no new request within the idle timeout after the last answer.
///
/// The idle wait starts when the last answer owed has ended, not when the last request was read: a client that
/// pipelined requests is waiting on the listener, not idle (the proxy's answers each wait on its upstream).
///
/// Slow-header clients (slowloris) then cannot hold sockets open. Owned by the listener's HTTP handler, the first
/// handler after the decoder (``HTTPAPIHandler`` for `serve`, ``MalformedRequestResponder`` for the proxy), which
/// tells it of every request part it reads and every answer that ends: not a handler of its own, since each handler
/// a request passes costs it a dynamic cast and a call per part, both ways. Disarmed when that handler leaves (the
/// socket became a WebSocket, whose liveness the hub's ping sweep owns) or the connection closes.
///
/// One timer per connection, re-armed lazily: a request moves the deadline (a clock read), and the timer, when it
/// fires early, sleeps again until the deadline. Scheduling and cancelling a timer twice per request cost more than
/// the rest of a keep-alive API request's path on the event loop.
package final class RequestDeadline {
    /// The timeouts of every connection of a listener.
    struct Timeouts: Sendable {
        var request: TimeAmount
        var idle: TimeAmount
    }

    private let timeouts: Timeouts
    private let logger: Logger
    /// The timer, and when it fires.
    private var timer: (task: Scheduled<Void>, at: NIODeadline)?
    /// When the connection is closed unless something moves it.
    private var deadline = NIODeadline.distantFuture
    private var why = ""
    /// Between a request's head and its end.
    private var inRequest = false
    /// Requests read in full whose answers have not ended (below 0 while an answer ended before its request did).
    private var owed = 0
    /// The request is the debug feed's (`GET /apps/{id}/console`): its answer streams as long as the reader reads,
    /// so no idle deadline follows it.
    private var streaming = false

    init(_ timeouts: Timeouts, logger: Logger) {
        self.timeouts = timeouts
        self.logger = logger
    }

    /// The connection's handler was added: its first request's headers are due.
    func start(context: ChannelHandlerContext) {
        arm(timeouts.request, why: "request headers not received in time", context: context)
    }

    /// The handler left or the connection closed.
    func stop() {
        timer?.task.cancel()
        timer = nil
        deadline = .distantFuture
    }

    /// A request part was read.
    func read(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            inRequest = true
            streaming = head.method == .GET && head.uri.prefix { $0 != "?" }.hasSuffix("/console")
            arm(timeouts.request, why: "request body not received in time", context: context)
        case .body: break
        case .end:
            inRequest = false
            owed += 1
            if streaming {
                stop()
            } else if owed > 0 {
                // No deadline until the answer has ended (the timer stays: it sleeps again when it fires).
                deadline = .distantFuture
            } else {
                arm(timeouts.idle, why: "idle connection", context: context)
            }
        }
    }

    /// An answer's end was written.
    func answerEnded(context: ChannelHandlerContext) {
        owed -= 1
        if owed == 0, !inRequest, !streaming { arm(timeouts.idle, why: "idle connection", context: context) }
    }

    /// The server is stopping: a connection with no request under way has nothing left to do.
    func quiesce(_ event: Any, context: ChannelHandlerContext) {
        if event is ChannelShouldQuiesceEvent, !inRequest {
            context.close(promise: nil)
        }
    }

    private func arm(_ timeout: TimeAmount, why: String, context: ChannelHandlerContext) {
        deadline = .now() + timeout
        self.why = why
        // A timer that fires no later than the new deadline stays: it sleeps again when it fires early.
        if let timer, timer.at <= deadline { return }
        timer?.task.cancel()
        schedule(context: context)
    }

    /// Arms the timer for the deadline, or sooner: never further than the shorter timeout, so that the next
    /// request's (earlier) deadline never needs a new timer.
    private func schedule(context: ChannelHandlerContext) {
        let when = min(deadline, .now() + min(timeouts.request, timeouts.idle))
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: when) { [self] in
            self.timer = nil
            if NIODeadline.now() < self.deadline {
                self.schedule(context: context)
            } else {
                self.logger.debug("closing an HTTP connection", metadata: ["reason": "\(self.why)"])
                context.close(promise: nil)
            }
        }
        timer = (task, when)
    }
}
