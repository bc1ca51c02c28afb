import Logging
import NIOCore
import NIOSSL

/// The real transport: a SwiftNIO pipeline on the client's event loop.
///
/// `WebSocketDialer` (TCP, NIOSSL with SNI for host names, the upgrade with the deflate offer, NIOWebSocket's frame
/// codec, every byte that came with the `101` kept) → `PusherFrameHandler`, which reassembles, inflates
/// (permessage-deflate, compress-nio), decodes Pusher messages and hands each read burst to the client at once.
public struct WebSocketTransport: PusherTransport {
    /// Where the transport logs.
    public var logger: Logger

    /// A transport that logs to `logger` (label `pushtop.transport` by default).
    public init(logger: Logger = Logger(label: "pushtop.transport")) {
        self.logger = logger
    }

    public func open(
        url: String, on eventLoop: any EventLoop, settings: TransportSettings, tap: FrameTap,
        deliver: @escaping @Sendable ([TransportEvent]) -> Void
    ) -> any TransportConnection {
        let connection = WebSocketConnection(eventLoop: eventLoop)
        let outcome = ConnectionOutcome(deliver: deliver)
        func failNow(_ reason: String) -> any TransportConnection {
            eventLoop.execute {
                outcome.fail(reason)
                outcome.report([], ending: true)
            }
            return connection
        }
        guard let target = WebSocketURL(url) else { return failNow("not a ws:// or wss:// URL: \(url)") }
        var tls: NIOSSLContext?
        if target.useTLS {
            do {
                tls = try WebSocketDialer.makeTLSContext(caFile: settings.caFile)
            } catch {
                return failNow("TLS setup failed: \(error)")
            }
        }
        let dialer = WebSocketDialer(
            url: target, offerDeflate: true, tls: tls,
            connectTimeout: .milliseconds(Int64(settings.connectTimeout * 1000)),
            maxFrameSize: settings.maxMessageSize, protocolErrorHandler: true)
        let dial = dialer.dial(on: eventLoop) { channel, response in
            let pipeline = channel.pipeline.syncOperations
            let inflater = try MessageInflater.negotiated(by: response)
            let handler = PusherFrameHandler(settings: settings, tap: tap, outcome: outcome, inflater: inflater)
            try pipeline.addHandler(handler)
            if settings.readCoalescing > 0 {
                // After the upgrade, so that the handshakes are not paced.
                try pipeline.addHandler(
                    ReadCoalescingHandler(interval: .nanoseconds(Int64(settings.readCoalescing * 1e9))),
                    position: .first)
            }
            connection.upgraded(handler)
        }
        dial.upgraded.whenFailure { error in
            // Before the connection's end is reported: its close comes after the dial failed.
            outcome.fail(Self.describe(error))
        }
        dial.channel.whenComplete { result in
            switch result {
            case .success(let channel):
                connection.attach(channel)
                channel.closeFuture.whenComplete { _ in outcome.report([], ending: true) }
            case .failure:
                // The dial failed with the reason (above).
                outcome.report([], ending: true)
            }
        }
        return connection
    }

    /// A short, user-facing reason for a failed connection.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case let error as WebSocketDialError:
            switch error {
            case .closed: return "connection closed without a close frame"
            default: return error.description
            }
        default: return WebSocketDialError.describe(error)
        }
    }
}

/// The handle of one ``WebSocketTransport`` connection. Its state is touched only on the connection's event loop;
/// calls from elsewhere hop there.
final class WebSocketConnection: TransportConnection, @unchecked Sendable {
    private let eventLoop: any EventLoop
    private var channel: (any Channel)?
    private var handler: PusherFrameHandler?
    private var queued: [String] = []
    private var closeRequest: (code: Int, reason: String)?

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func send(_ text: String) {
        onLoop {
            if let handler = self.handler {
                handler.sendText(text)
            } else if self.closeRequest == nil {
                self.queued.append(text)
            }
        }
    }

    func close(code: Int, reason: String) {
        onLoop {
            guard self.closeRequest == nil else { return }
            self.closeRequest = (code, reason)
            if let handler = self.handler {
                handler.close(code: code, reason: reason)
            } else {
                // Not upgraded yet: there is no WebSocket to close, only a socket.
                self.channel?.close(promise: nil)
            }
        }
    }

    func attach(_ channel: any Channel) {
        self.channel = channel
        if closeRequest != nil && handler == nil { channel.close(promise: nil) }
    }

    func upgraded(_ handler: PusherFrameHandler) {
        self.handler = handler
        if let closeRequest {
            handler.close(code: closeRequest.code, reason: closeRequest.reason)
            return
        }
        for text in queued { handler.sendText(text) }
        queued = []
    }

    private func onLoop(_ body: @escaping () -> Void) {
        if eventLoop.inEventLoop {
            body()
        } else {
            let box = UnsafeTransferBox(body)
            eventLoop.execute { box.value() }
        }
    }
}

/// Carries a closure to the event loop that owns everything it touches.
private struct UnsafeTransferBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
