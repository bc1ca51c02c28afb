import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The embedded Pusher-protocol server: WebSocket `/app/{key}` and the HTTP API `/apps/{id}/...` on one port,
/// over TLS when the configuration names a certificate.
///
/// ```swift
/// let server = try await EmbeddedServer.start(ServerConfiguration(port: 0, simulate: true))
/// print(server.webSocketURL)   // ws://127.0.0.1:41234/app/pushtop-key
/// await server.shutdown()
/// ```
public final class EmbeddedServer: Sendable {
    /// The configuration the server was started with.
    public let configuration: ServerConfiguration
    /// The hub: publish events and read channel state in-process through it.
    public let hub: PusherHub
    /// The port actually bound (the ephemeral one when the configuration asked for port 0).
    public let port: Int

    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>
    private let sweepTask: Task<Void, Never>
    private let inboxTask: Task<Void, Never>
    private let simulator: Simulator?
    private let logger: Logger

    private init(
        configuration: ServerConfiguration, hub: PusherHub, port: Int, serviceGroup: ServiceGroup,
        runTask: Task<Void, Never>, sweepTask: Task<Void, Never>, inboxTask: Task<Void, Never>, simulator: Simulator?,
        logger: Logger
    ) {
        self.configuration = configuration
        self.hub = hub
        self.port = port
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.sweepTask = sweepTask
        self.inboxTask = inboxTask
        self.simulator = simulator
        self.logger = logger
    }

    /// Starts listening; returns once the port is bound.
    /// - Throws: ``EmbeddedServerError/couldNotStart(host:port:reason:)`` when the address cannot be bound,
    ///   ``EmbeddedServerError/badTLSFiles(certificate:key:reason:)`` when the TLS files cannot be used.
    public static func start(
        _ configuration: ServerConfiguration, logger: Logger = Logger(label: "pushtop.server")
    ) async throws(EmbeddedServerError) -> EmbeddedServer {
        var logger = logger
        var backplane: any Backplane = LocalBackplane()
        if let cluster = configuration.cluster {
            logger[metadataKey: "node_id"] = .string(cluster.nodeID)
            do {
                backplane = try RedisBackplane(cluster: cluster, server: configuration, logger: logger)
            } catch {
                throw .badRedisURL(reason: error.description)
            }
        }
        let hub = PusherHub(configuration: configuration, backplane: backplane, logger: logger)
        await backplane.start(hub: hub)

        let router = Router(context: BasicRequestContext.self)
        PusherHTTPAPI(hub: hub, app: configuration.app, limits: configuration.limits).register(on: router)
        if configuration.demoAuthEndpoint {
            DemoAuthEndpoint(app: configuration.app).register(on: router)
        }
        HealthEndpoint(hub: hub).register(on: router)
        if configuration.metricsEndpoint {
            MetricsEndpoint(hub: hub).register(on: router)
        }
        let server = try serverBuilder(configuration, hub: hub)

        let (started, startedContinuation) = AsyncStream.makeStream(of: Result<Int, EmbeddedServerError>.self)
        let application = Application(
            router: router,
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "pushtop",
                availableConnectionsDelegate: ConnectionCap(maxConnections: configuration.maxConnections, logger: logger)),
            onServerRunning: { channel in
                startedContinuation.yield(.success(channel.localAddress?.port ?? configuration.port))
            },
            logger: logger
        )
        let inboxTask = Task { await hub.run() }
        let serviceGroup = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let runTask = Task {
            do {
                try await serviceGroup.run()
                startedContinuation.yield(.failure(.couldNotStart(
                    host: configuration.host, port: configuration.port, reason: "the server stopped at once")))
            } catch {
                startedContinuation.yield(.failure(.couldNotStart(
                    host: configuration.host, port: configuration.port, reason: "\(error)")))
            }
            startedContinuation.finish()
        }

        var boundPort: Int?
        for await result in started {
            switch result {
            case .success(let port): boundPort = port
            case .failure(let error):
                runTask.cancel()
                inboxTask.cancel()
                await backplane.stop()
                throw error
            }
            break
        }
        guard let boundPort else {
            inboxTask.cancel()
            await backplane.stop()
            throw .couldNotStart(host: configuration.host, port: configuration.port, reason: "startup was cancelled")
        }

        let interval = Duration.milliseconds(Int64(max(50, min(1000, configuration.activityTimeout * 250))))
        let sweepTask = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await hub.sweep()
            }
        }
        var simulator: Simulator?
        if configuration.simulate {
            simulator = Simulator(hub: hub, app: configuration.app, configuration: configuration.simulator, logger: logger)
            await simulator?.start()
        }
        logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(boundPort)"])
        return EmbeddedServer(
            configuration: configuration, hub: hub, port: boundPort, serviceGroup: serviceGroup, runTask: runTask,
            sweepTask: sweepTask, inboxTask: inboxTask, simulator: simulator, logger: logger)
    }

    /// Our connection type (HTTP and WebSockets on the event loops), behind TLS when a certificate is given.
    private static func serverBuilder(
        _ configuration: ServerConfiguration, hub: PusherHub
    ) throws(EmbeddedServerError) -> HTTPServerBuilder {
        let settings = PusherServerChannel.Settings(
            maxMessageBytes: configuration.limits.maxMessageBytes,
            maxPendingOutboundBytes: configuration.limits.maxPendingOutboundBytes,
            closeGrace: .seconds(2),
            requestTimeout: .milliseconds(Int64(configuration.requestTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)),
            compression: configuration.compression)
        let plain = HTTPServerBuilder { responder in
            PusherServerChannel(responder: responder, inbox: hub.inbox, settings: settings)
        }
        guard let tls = configuration.tls else { return plain }
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(tls.certificatePath)
            let key = try NIOSSLPrivateKey(file: tls.keyPath, format: .pem)
            let tlsConfiguration = TLSConfiguration.makeServerConfiguration(
                certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
            return try .tls(plain, tlsConfiguration: tlsConfiguration)
        } catch {
            throw .badTLSFiles(certificate: tls.certificatePath, key: tls.keyPath, reason: "\(error)")
        }
    }

    /// The address clients connect to (`ws://HOST:PORT/app/KEY`); a wildcard bind is shown as 127.0.0.1.
    public var webSocketURL: String {
        "\(configuration.tls == nil ? "ws" : "wss")://\(reachableHost):\(port)/app/\(configuration.app.key)"
    }
    /// Base URL of the HTTP API (`http://HOST:PORT`, `https://` with TLS).
    public var httpURL: String { "\(configuration.tls == nil ? "http" : "https")://\(reachableHost):\(port)" }
    /// The demo authorization endpoint, when enabled.
    public var authEndpointURL: String? { configuration.demoAuthEndpoint ? "\(httpURL)/pusher/auth" : nil }
    /// The demo user-authentication endpoint (signs any user in), when enabled.
    public var userAuthEndpointURL: String? {
        configuration.demoAuthEndpoint ? "\(httpURL)/pusher/user-auth" : nil
    }

    private var reachableHost: String {
        switch configuration.host {
        case "0.0.0.0", "::", "": return "127.0.0.1"
        case let host where host.contains(":"): return "[\(host)]"
        default: return configuration.host
        }
    }

    /// Stops the simulator, closes every connection with a close frame (1001), and stops listening.
    /// Returns when the server has stopped; a peer that never answers the close is dropped after 2 seconds.
    public func shutdown() async {
        if let simulator { await simulator.stop() }
        sweepTask.cancel()
        await hub.shutdown()
        // The cluster hears this node's connections leave (queued by the shutdown), then its goodbye.
        await hub.backplane.stop()
        if hub.backplane.isClustered { hub.webhooks?.finish() }
        if let webhooks = hub.webhooks {
            // The last webhooks (channels vacated by the shutdown) get a moment to leave; a receiver that is down
            // does not hold the shutdown up for longer.
            let drain = Task { await webhooks.drained() }
            let cap = Task {
                try? await Task.sleep(for: .seconds(2))
                drain.cancel()
            }
            await drain.value
            cap.cancel()
        }
        await serviceGroup.triggerGracefulShutdown()
        let runTask = self.runTask
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(5))
            if !Task.isCancelled { runTask.cancel() }
        }
        await runTask.value
        watchdog.cancel()
        inboxTask.cancel()
        hub.inbox.finish()
        logger.info("stopped")
    }
}

/// Why the embedded server could not run.
public enum EmbeddedServerError: Error, Sendable, CustomStringConvertible {
    case couldNotStart(host: String, port: Int, reason: String)
    /// The TLS certificate or key could not be read.
    case badTLSFiles(certificate: String, key: String, reason: String)
    /// The Redis URL of the cluster configuration cannot be used.
    case badRedisURL(reason: String)

    public var description: String {
        switch self {
        case .couldNotStart(let host, let port, let reason):
            return "could not listen on \(host):\(port): \(reason)"
        case .badTLSFiles(let certificate, let key, let reason):
            return "could not use the TLS certificate \(certificate) with the key \(key): \(reason)"
        case .badRedisURL(let reason):
            return reason
        }
    }
}
