import Logging
import NIOSSL
import PusherChannels
import Synchronization
import WSClient

/// The WebSocket steps of `pushtop doctor`: the HTTP upgrade to `/app/KEY`, then the server's first message,
/// which must be `pusher:connection_established` (a refused key gets `pusher:error` 4001 instead).
enum PusherHandshakeProbe {
    enum Result: Sendable {
        /// The upgrade failed: not a WebSocket endpoint, wrong path, or the connection broke.
        case upgradeFailed(String)
        /// Upgraded; the first message was `pusher:connection_established`.
        case established(socketID: String, activityTimeout: Int?)
        /// Upgraded; the server refused with `pusher:error` or a close code.
        case refused(code: Int?, message: String)
        /// Upgraded; nothing usable arrived in time.
        case silent(String)
    }

    static func run(url: String, timeout: Double) async -> Result {
        let outcome = Outcome()
        var logger = Logger(label: "pushtop.doctor")
        logger.logLevel = .critical
        let attempt = Task { () -> Result in
            do {
                let closeFrame = try await WebSocketClient.connect(
                    url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 20),
                    tlsConfiguration: url.hasPrefix("wss") ? TLSConfiguration.makeClientConfiguration() : nil,
                    logger: logger
                ) { inbound, outbound, _ in
                    outcome.set(.silent("upgraded, but the server sent nothing"))
                    var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                    guard let message = try await messages.next() else { return }
                    guard case .text(let text) = message, let decoded = try? PusherMessage(decoding: text) else {
                        outcome.set(.silent("the first message is not a Pusher message"))
                        try await outbound.close(.normalClosure, reason: nil)
                        return
                    }
                    switch decoded.event {
                    case "pusher:connection_established":
                        let data = decoded.dataJSON
                        outcome.set(
                            .established(
                                socketID: data?["socket_id"]?.stringValue ?? "?",
                                activityTimeout: data?["activity_timeout"]?.intValue))
                        try await outbound.close(.normalClosure, reason: "pushtop doctor")
                    case "pusher:error":
                        let data = decoded.dataJSON
                        outcome.set(
                            .refused(code: data?["code"]?.intValue, message: data?["message"]?.stringValue ?? text))
                        // The server closes after its error; wait for that, so the close code is seen.
                        while try await messages.next() != nil {}
                    default:
                        outcome.set(
                            .silent("the first message was \(decoded.event), not pusher:connection_established"))
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                }
                if case .silent? = outcome.get(), let closeFrame, closeFrame.closeCode.number >= 4000 {
                    return .refused(code: Int(closeFrame.closeCode.number), message: closeFrame.reason ?? "")
                }
                return outcome.get() ?? .upgradeFailed("the connection closed before the upgrade")
            } catch {
                if let earlier = outcome.get() { return earlier }
                return .upgradeFailed(describe(error))
            }
        }
        let timer = Task {
            try await Task.sleep(for: .seconds(timeout))
            attempt.cancel()
        }
        let result = await attempt.value
        timer.cancel()
        if Task.isCancelled { return .silent("cancelled") }
        return result
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? WebSocketClientError, error == .webSocketUpgradeFailed {
            return "the server refused the WebSocket upgrade"
        }
        if error is CancellationError { return "timed out" }
        return NetworkProbe.describe(error)
    }

    /// What the handler saw, read after the connection ended.
    final class Outcome: Sendable {
        private let value = Mutex<Result?>(nil)
        func set(_ result: Result) { value.withLock { $0 = result } }
        func get() -> Result? { value.withLock { $0 } }
    }
}
