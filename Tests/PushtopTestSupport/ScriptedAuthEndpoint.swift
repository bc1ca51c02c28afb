import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// An HTTP channel-authorization endpoint for tests: records the form posts and answers as scripted.
public final class ScriptedAuthEndpoint: Sendable {
    public struct Reply: Sendable {
        public var status: Int
        public var body: String
        /// Seconds to wait before answering (to test timeouts).
        public var delay: Double

        public init(status: Int = 200, body: String, delay: Double = 0) {
            self.status = status
            self.body = body
            self.delay = delay
        }
    }

    /// Form fields and headers of one request.
    public struct Received: Sendable {
        public var form: [String: String]
        public var headers: [String: String]
    }

    private let replyFor = Mutex<@Sendable ([String: String]) -> Reply>({ _ in Reply(status: 500, body: "") })
    private let received = Mutex<[Received]>([])
    private let run = Mutex<GracefulServerRun?>(nil)
    private let boundPort = Mutex(0)
    public var port: Int { boundPort.withLock { $0 } }

    public var url: String { "http://127.0.0.1:\(port)/pusher/auth" }
    public var requests: [Received] { received.withLock { $0 } }

    public init() {}

    /// Sets how the endpoint answers, given the form fields.
    public func respond(_ reply: @escaping @Sendable ([String: String]) -> Reply) {
        replyFor.withLock { $0 = reply }
    }

    public func start() async throws {
        let router = Router()
        router.post("/pusher/auth") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let text = String(buffer: body)
            var form: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                form[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            self.received.withLock { $0.append(Received(form: form, headers: headers)) }
            let reply = self.replyFor.withLock { $0 }(form)
            if reply.delay > 0 { try await Task.sleep(for: .seconds(reply.delay)) }
            return Response(
                status: .init(code: reply.status), headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: reply.body)))
        }
        let (port, server) = await runOnLoopback(router, label: "auth-endpoint")
        boundPort.withLock { $0 = port }
        run.withLock { $0 = server }
    }

    public func stop() {
        run.withLock { $0?.stop() }
    }
}
