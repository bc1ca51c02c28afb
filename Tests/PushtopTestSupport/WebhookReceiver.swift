import Foundation
import Hummingbird
import Logging
import NIOCore
import PusherProtocol
import Synchronization

/// A local HTTP server that receives webhooks for tests: records each request and answers with the scripted
/// status (e.g. 500 for the first few, to exercise retries).
public final class WebhookReceiver: Sendable {
    /// One request as received.
    public struct Received: Sendable {
        public var body: String
        public var key: String?
        public var signature: String?

        /// The events of the batch.
        public var events: [JSONValue] { JSONValue.parseIfJSON(body)?["events"]?.arrayValue ?? [] }
    }

    private let statuses = Mutex<[Int]>([])
    private let received = Mutex<[Received]>([])
    private let attempts = Mutex(0)
    private let bodies = Mutex<[String]>([])
    private let run = Mutex<GracefulServerRun?>(nil)
    private let boundPort = Mutex(0)

    public var url: String { "http://127.0.0.1:\(boundPort.withLock { $0 })/webhooks" }
    /// Requests answered 2xx.
    public var accepted: [Received] { received.withLock { $0 } }
    /// Every event name accepted so far, in order.
    public var eventNames: [String] { accepted.flatMap { $0.events.compactMap { $0["name"]?.stringValue } } }
    /// Every request, answered or refused.
    public var attemptCount: Int { attempts.withLock { $0 } }
    /// The body of every request, answered or refused, in order.
    public var attemptedBodies: [String] { bodies.withLock { $0 } }

    public init() {}

    /// Answers the next requests with these statuses, then 200.
    public func failNext(_ statuses: [Int]) {
        self.statuses.withLock { $0 = statuses }
    }

    public func start() async throws {
        let router = Router()
        router.post("/webhooks") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
            self.attempts.withLock { $0 += 1 }
            self.bodies.withLock { $0.append(body) }
            let status = self.statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            if status == 200 {
                let headers = request.headers
                self.received.withLock {
                    $0.append(
                        Received(
                            body: body, key: headers[.init("X-Pusher-Key")!],
                            signature: headers[.init("X-Pusher-Signature")!]))
                }
            }
            return Response(status: .init(code: status))
        }
        let (port, server) = await runOnLoopback(router, label: "webhook-receiver")
        boundPort.withLock { $0 = port }
        run.withLock { $0 = server }
    }

    public func stop() {
        run.withLock { $0?.stop() }
    }
}
