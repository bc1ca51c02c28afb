import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import PusherProtocol

/// An app whose webhooks the receiver verifies: `X-Pusher-Key` names it, its secret signs the body.
public struct WebhookCredential: Sendable, Hashable {
    public var appID: String?
    public var key: String
    public var secret: String

    public init(appID: String?, key: String, secret: String) {
        self.appID = appID
        self.key = key
        self.secret = secret
    }
}

/// How `pushtop webhooks`, `pushtop console --webhook-listen` and the dashboard's `--webhook-listen` receive webhooks.
public struct WebhookReceiverSettings: Sendable {
    /// Where to listen (`127.0.0.1`, `0.0.0.0`…) and on which port (0: any free port).
    public var host: String
    public var port: Int
    /// The apps whose signatures are checked; empty: every webhook is shown unverified.
    public var credentials: [WebhookCredential]
    /// Endpoints each request is passed on to unchanged (`--forward`).
    public var forward: [String]
    /// Asks the server's HTTP API how many subscribers a channel has (app id, channel → count, `nil` when unknown):
    /// flags a `channel_vacated` while the API still lists subscribers.
    public var subscriberCount: (@Sendable (_ appID: String?, _ channel: String) async -> Int?)?
    /// Seconds a `--forward` target has to answer (a target that refuses connections is retried until then).
    public var forwardTimeout: Double = 10
    /// Seconds a connection may send nothing (mid-request or between requests) before it is closed.
    public var idleTimeout: Double = 30

    public init(
        host: String, port: Int, credentials: [WebhookCredential] = [], forward: [String] = [],
        subscriberCount: (@Sendable (_ appID: String?, _ channel: String) async -> Int?)? = nil
    ) {
        self.host = host
        self.port = port
        self.credentials = credentials
        self.forward = forward
        self.subscriberCount = subscriberCount
    }
}

/// Receives the webhooks of Pusher, soketi, sockudo or `pushtop serve` and turns them into console rows
/// (`"source":"webhook"`), with `webhook_rejected` and `webhook_problem` rows for what does not verify or deviates.
///
/// An HTTP/1.1 server on SwiftNIO: `POST` at any path; bodies over 1 MiB are answered 413, and beyond 64 requests or
/// 8 MiB of bodies in progress 503 (an `overloaded` row counts them each second), so memory stays bounded under a
/// flood; a connection silent for 30 s is closed. The parts:
/// ``WebhookSignatureCheck`` (verification and the likely cause), ``WebhookAuditor`` (format and timing),
/// ``WebhookRows`` (events → rows), `WebhookForwarder` (`--forward`), `WebhookRequestProcessor` (the sender's answer).
public final class WebhookReceiver: Sendable {
    public let settings: WebhookReceiverSettings
    private let logger: Logger

    public init(settings: WebhookReceiverSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// Listens until the task is cancelled. Calls `listening` once with the bound `host:port`, and `deliver` with the
    /// rows of each request as it arrives.
    /// - Throws: when it cannot listen (the address is taken or invalid).
    public func run(
        listening: @escaping @Sendable (String) -> Void,
        deliver: @escaping @Sendable ([ConsoleRow]) -> Void
    ) async throws {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let forwarder =
            settings.forward.isEmpty
            ? nil
            : WebhookForwarder(
                client: client, targets: settings.forward, timeout: .milliseconds(Int64(settings.forwardTimeout * 1000))
            )
        let processor = WebhookRequestProcessor(
            settings: settings, forwarder: forwarder, logger: logger, deliver: deliver)
        let idleTimeout = TimeAmount.milliseconds(Int64(settings.idleTimeout * 1000))
        let server: any Channel
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(WebhookHTTPHandler(processor: processor))
                    }
                }
                .bind(host: settings.host, port: settings.port).get()
        } catch {
            try? await client.shutdown()
            throw WebhookReceiverError.cannotListen(
                address: "\(settings.host):\(settings.port)", reason: "\(error)")
        }
        let port = server.localAddress?.port ?? settings.port
        let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        logger.debug("webhook receiver listening", metadata: ["address": "\(host):\(port)"])
        listening("\(host):\(port)")
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            processor.reportOverload()
        }
        try? await server.close()
        try? await client.shutdown()
    }
}

/// Why the webhook receiver could not run.
public enum WebhookReceiverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Binding `address` failed (taken, not an address of this machine…).
    case cannotListen(address: String, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        }
    }
}
