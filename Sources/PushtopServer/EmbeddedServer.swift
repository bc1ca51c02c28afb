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

    /// The long-lived pieces: the hub's inbox, the HTTP server, webhooks, the backplane, the hub's sweeps and the
    /// simulator, started together and stopped in reverse order.
    private let serviceGroup: ServiceGroup
    /// Runs ``serviceGroup``: the one task the server starts.
    private let runTask: Task<Void, Never>
    private let logger: Logger

    private init(
        configuration: ServerConfiguration, hub: PusherHub, port: Int, serviceGroup: ServiceGroup,
        runTask: Task<Void, Never>, logger: Logger
    ) {
        self.configuration = configuration
        self.hub = hub
        self.port = port
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.logger = logger
    }

    /// What the start waits for: the port bound, the cluster joined (or given up on), the first simulated members.
    private enum StartupEvent: Sendable {
        case bound(port: Int)
        case joined
        case simulating
        case failed(reason: String)
    }

    /// Starts listening; returns once the port is bound (in a cluster, once the node joined or, after a few
    /// seconds, serves alone until Redis is reachable).
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
        let server = try serverBuilder(configuration, hub: hub)
        let (startup, reporter) = AsyncStream.makeStream(of: StartupEvent.self)
        let serviceGroup = ServiceGroup(configuration: serviceGroupConfiguration(
            configuration, hub: hub, server: server, report: { reporter.yield($0) }, logger: logger))
        let runTask = Task {
            do {
                try await serviceGroup.run()
                reporter.yield(.failed(reason: "the server stopped at once"))
            } catch {
                reporter.yield(.failed(reason: "\(error)"))
            }
            reporter.finish()
        }
        var boundPort: Int?
        var joined = !backplane.isClustered
        var simulating = !configuration.simulate
        var failure = "startup was cancelled"
        waiting: for await event in startup {
            switch event {
            case .bound(let port): boundPort = port
            case .joined: joined = true
            case .simulating: simulating = true
            case .failed(let reason):
                failure = reason
                break waiting
            }
            if boundPort != nil, joined, simulating { break }
        }
        guard let boundPort, joined, simulating else {
            runTask.cancel()
            await runTask.value
            throw .couldNotStart(host: configuration.host, port: configuration.port, reason: failure)
        }
        logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(boundPort)"])
        return EmbeddedServer(
            configuration: configuration, hub: hub, port: boundPort, serviceGroup: serviceGroup, runTask: runTask,
            logger: logger)
    }

    /// The server's services, in the order they start; they stop in reverse: the simulator, the hub (its
    /// connections closed), the backplane (the cluster hears them leave, then this node's goodbye), the webhooks
    /// (the last ones get a moment), the HTTP server (at most 5 s), the hub's inbox.
    private static func serviceGroupConfiguration(
        _ configuration: ServerConfiguration, hub: PusherHub, server: HTTPServerBuilder,
        report: @escaping @Sendable (StartupEvent) -> Void, logger: Logger
    ) -> ServiceGroupConfiguration {
        // One after the other, as clients would see them: the node joins its cluster (or gives up waiting), the
        // server listens, the simulation begins.
        let (joined, nowJoined) = AsyncStream.makeStream(of: Void.self)
        let (listening, nowListening) = AsyncStream.makeStream(of: Void.self)
        let application = Application(
            router: router(configuration, hub: hub),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "pushtop",
                availableConnectionsDelegate: ConnectionCap(maxConnections: configuration.maxConnections, logger: logger)),
            onServerRunning: { channel in
                nowListening.finish()
                report(.bound(port: channel.localAddress?.port ?? configuration.port))
            },
            logger: logger
        )
        typealias Named = ServiceGroupConfiguration.ServiceConfiguration
        var services: [Named] = [
            Named(service: HubInboxService(hub: hub), serviceName: "hub-inbox"),
            Named(service: ShutdownDeadline(service: GatedService(gate: joined, service: application),
                                            limit: .seconds(5)), serviceName: "http"),
        ]
        if let webhooks = hub.webhooks {
            services.append(Named(service: WebhookService(webhooks: webhooks, drainTimeout: .seconds(2)),
                                  serviceName: "webhooks"))
        }
        if hub.backplane.isClustered {
            let backplane = BackplaneService(backplane: hub.backplane, hub: hub) {
                nowJoined.finish()
                report(.joined)
            }
            services.append(Named(service: backplane, serviceName: "backplane"))
        } else {
            nowJoined.finish()
        }
        let interval = Duration.milliseconds(Int64(max(50, min(1000, configuration.activityTimeout * 250))))
        services.append(Named(service: HubService(hub: hub, sweepInterval: interval), serviceName: "hub"))
        if configuration.simulate {
            let simulator = Simulator(hub: hub, app: configuration.app, configuration: configuration.simulator,
                                      logger: logger)
            let service = SimulatorService(simulator: simulator) { report(.simulating) }
            services.append(Named(service: GatedService(gate: listening, service: service), serviceName: "simulator"))
        }
        var group = ServiceGroupConfiguration(services: services, logger: logger)
        // A last resort: each step has its own bound (webhooks 2 s, the HTTP server 5 s, Redis' command timeouts).
        group.maximumGracefulShutdownDuration = .seconds(20)
        group.maximumCancellationDuration = .seconds(5)
        return group
    }

    /// The HTTP API, the demo auth endpoints, `/health` and `/metrics` as configured.
    private static func router(_ configuration: ServerConfiguration, hub: PusherHub) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        PusherHTTPAPI(hub: hub, app: configuration.app, limits: configuration.limits).register(on: router)
        if configuration.demoAuthEndpoint {
            DemoAuthEndpoint(app: configuration.app).register(on: router)
        }
        HealthEndpoint(hub: hub).register(on: router)
        if configuration.metricsEndpoint {
            MetricsEndpoint(hub: hub).register(on: router)
        }
        return router
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
            fastPath: configuration.apiFastPath ? Self.fastPathApps(configuration, hub: hub) : nil,
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

    /// The app behind an app id, for the HTTP API's fast path.
    private static func fastPathApps(_ configuration: ServerConfiguration, hub: PusherHub)
        -> @Sendable (Substring) -> APIFastPath.App?
    {
        let app = APIFastPath.App(
            verifier: APIRequestVerifier(key: configuration.app.key, secret: configuration.app.secret),
            limits: configuration.limits, inbox: hub.inbox)
        let id = configuration.app.id
        return { $0 == id ? app : nil }
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
    ///
    /// The services stop in reverse order of their start (see ``ServiceGroup``): the simulator's members leave,
    /// the hub closes its connections, a node tells its cluster, the last webhooks get up to 2 seconds, then the
    /// HTTP server stops (at most 5 seconds) and the hub's inbox last.
    public func shutdown() async {
        await serviceGroup.triggerGracefulShutdown()
        await runTask.value
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
