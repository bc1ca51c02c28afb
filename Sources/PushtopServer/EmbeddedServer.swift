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
    /// The hub of the first app served now (after the last reload): publish events and read channel state
    /// in-process through it.
    public var hub: PusherHub { apps.nodes[0].hub }
    /// The port actually bound (the ephemeral one when the configuration asked for port 0).
    public let port: Int

    /// The apps served, by key and by id; a reload swaps them at once.
    let apps: AppDirectory
    /// The long-lived pieces: the hubs' inboxes, the HTTP server, then each app's own group (webhooks, backplane,
    /// the hub's sweeps, the simulator), started together and stopped in reverse order.
    let serviceGroup: ServiceGroup
    /// Runs ``serviceGroup``: the one task the server starts.
    private let runTask: Task<Void, Never>
    let logger: Logger

    private init(
        configuration: ServerConfiguration, apps: AppDirectory, port: Int, serviceGroup: ServiceGroup,
        runTask: Task<Void, Never>, logger: Logger
    ) {
        self.configuration = configuration
        self.apps = apps
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

    /// Starts listening; returns once the port is bound (in a cluster, once every app's backplane joined or, after
    /// a few seconds, serves alone until Redis is reachable).
    /// - Throws: ``EmbeddedServerError/couldNotStart(host:port:reason:)`` when the address cannot be bound,
    ///   ``EmbeddedServerError/badTLSFiles(certificate:key:reason:)`` when the TLS files cannot be used,
    ///   ``EmbeddedServerError/badApps(reason:)`` when two apps share a key or an id.
    public static func start(
        _ configuration: ServerConfiguration, logger: Logger = Logger(label: "pushtop.server")
    ) async throws(EmbeddedServerError) -> EmbeddedServer {
        var logger = logger
        if let cluster = configuration.cluster {
            logger[metadataKey: "node_id"] = .string(cluster.nodeID)
        }
        let settings = configuration.servedApps
        try validate(settings)
        let (startup, reporter) = AsyncStream.makeStream(of: StartupEvent.self)
        // One after the other, as clients would see them: every app joins its cluster (or gives up waiting), the
        // server listens, the simulation begins.
        let (joined, nowJoined) = AsyncStream.makeStream(of: Void.self)
        let (listening, nowListening) = AsyncStream.makeStream(of: Void.self)
        let joins = JoinCount(expected: configuration.cluster == nil ? 0 : settings.count)
        if joins.isComplete { nowJoined.finish() }
        let nodes = try appNodes(
            configuration, settings: settings, logger: logger, reporter: reporter, joins: joins,
            nowJoined: nowJoined, listening: listening)
        for (node, app) in zip(nodes, settings) where !app.enabled {
            await node.hub.apply(limits: app.limits, enabled: false)
        }
        let apps = AppDirectory(nodes)
        let server = try serverBuilder(configuration, apps: apps, logger: logger)
        let serviceGroup = ServiceGroup(
            configuration: serviceGroupConfiguration(
                configuration, apps: apps, server: server, joined: joined,
                report: { event in
                    if case .bound = event { nowListening.finish() }
                    reporter.yield(event)
                }, logger: logger))
        let runTask = serviceGroup.runTask(stoppedAtOnce: "the server stopped at once") { reason in
            reporter.yield(.failed(reason: reason))
            reporter.finish()
        }
        let (boundPort, failure) = await startupOutcome(
            startup, clustered: nodes.filter { $0.hub.backplane.isClustered }.count,
            simulate: configuration.simulate)
        guard let boundPort else {
            runTask.cancel()
            await runTask.value
            throw .couldNotStart(host: configuration.host, port: configuration.port, reason: failure)
        }
        logger.info(
            "listening",
            metadata: [
                "host": "\(configuration.host)", "port": "\(boundPort)", "apps": "\(settings.count)",
            ])
        return EmbeddedServer(
            configuration: configuration, apps: apps, port: boundPort, serviceGroup: serviceGroup, runTask: runTask,
            logger: logger)
    }

    /// One node per app, the first one simulating when the configuration asks; each reports its join (the last one
    /// ends `nowJoined`) and its simulator's start.
    private static func appNodes(
        _ configuration: ServerConfiguration, settings: [AppSettings], logger: Logger,
        reporter: AsyncStream<StartupEvent>.Continuation, joins: JoinCount,
        nowJoined: AsyncStream<Void>.Continuation, listening: AsyncStream<Void>
    ) throws(EmbeddedServerError) -> [AppNode] {
        var nodes: [AppNode] = []
        for (index, app) in settings.enumerated() {
            let simulates = configuration.simulate && index == 0
            nodes.append(
                try AppNode(
                    app, server: configuration, ownsInbox: false, simulate: simulates, logger: logger,
                    joined: {
                        reporter.yield(.joined)
                        if joins.arrive() { nowJoined.finish() }
                    },
                    simulating: { reporter.yield(.simulating) }, listening: simulates ? listening : nil))
        }
        return nodes
    }

    /// Waits until the port is bound, every clustered app joined and the simulation began: the port then, else
    /// `nil` and why.
    private static func startupOutcome(
        _ startup: AsyncStream<StartupEvent>, clustered: Int, simulate: Bool
    ) async -> (port: Int?, failure: String) {
        var boundPort: Int?
        var joinedCount = 0
        var simulating = !simulate
        var failure = "startup was cancelled"
        waiting: for await event in startup {
            switch event {
            case .bound(let port): boundPort = port
            case .joined: joinedCount += 1
            case .simulating: simulating = true
            case .failed(let reason):
                failure = reason
                break waiting
            }
            if boundPort != nil, joinedCount >= clustered, simulating { break }
        }
        guard let boundPort, joinedCount >= clustered, simulating else { return (nil, failure) }
        return (boundPort, failure)
    }

    /// Refuses a list of apps that is empty or in which two apps share a key or an id.
    static func validate(_ apps: [AppSettings]) throws(EmbeddedServerError) {
        guard !apps.isEmpty else { throw .badApps(reason: "no app to serve") }
        var keys: Set<String> = []
        var ids: Set<String> = []
        for app in apps {
            guard ids.insert(app.credentials.id).inserted else {
                throw .badApps(reason: "two apps have the id '\(app.credentials.id)'")
            }
            guard keys.insert(app.credentials.key).inserted else {
                throw .badApps(reason: "two apps have the key '\(app.credentials.key)'")
            }
        }
    }

    /// The server's services, in the order they start; they stop in reverse: each app's group (its simulator, its
    /// hub closing its connections, its backplane telling the cluster, its last webhooks getting a moment), the
    /// HTTP server (at most 5 s), the hubs' inboxes.
    private static func serviceGroupConfiguration(
        _ configuration: ServerConfiguration, apps: AppDirectory, server: HTTPServerBuilder, joined: AsyncStream<Void>,
        report: @escaping @Sendable (StartupEvent) -> Void, logger: Logger
    ) -> ServiceGroupConfiguration {
        let application = Application(
            router: router(configuration, apps: apps),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "pushtop",
                availableConnectionsDelegate: ConnectionCap(
                    maxConnections: configuration.maxConnections, logger: logger)),
            onServerRunning: { channel in report(.bound(port: channel.localAddress?.port ?? configuration.port)) },
            logger: logger
        )
        let nodes = apps.nodes
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = nodes.map {
            .init(service: HubInboxService(hub: $0.hub))
        }
        // The server listens once every app joined its cluster (or gave up waiting).
        services.append(
            .init(
                service: ShutdownDeadline(
                    service: GatedService(gate: joined, service: application), limit: .seconds(5))))
        // An app's group ends early only when a reload removed the app: the server goes on.
        for node in nodes {
            services.append(
                ServiceGroupConfiguration.ServiceConfiguration(
                    service: node.group, successTerminationBehavior: .ignore))
        }
        var group = ServiceGroupConfiguration(services: services, logger: logger)
        // A last resort: each step has its own bound (webhooks 2 s, the HTTP server 5 s, Redis' command timeouts).
        group.maximumGracefulShutdownDuration = .seconds(20)
        group.maximumCancellationDuration = .seconds(5)
        return group
    }

    /// The console feed, the demo auth endpoints, `/health` and `/metrics` as configured. (The HTTP API is not the
    /// router's: ``HTTPAPIHandler`` serves it on the event loops, through ``HTTPAPICore``.)
    private static func router(_ configuration: ServerConfiguration, apps: AppDirectory) -> Router<BasicRequestContext>
    {
        let router = Router(context: BasicRequestContext.self)
        ConsoleEndpoint.register(on: router, apps: apps)
        if configuration.demoAuthEndpoint {
            DemoAuthEndpoint(apps: apps).register(on: router)
        }
        HealthEndpoint(apps: apps).register(on: router)
        if configuration.metricsEndpoint {
            MetricsEndpoint(apps: apps, labelled: !configuration.apps.isEmpty).register(on: router)
        }
        return router
    }

    /// Our connection type (HTTP and WebSockets on the event loops), behind TLS when a certificate is given.
    private static func serverBuilder(
        _ configuration: ServerConfiguration, apps: AppDirectory, logger: Logger
    ) throws(EmbeddedServerError) -> HTTPServerBuilder {
        let settings = PusherServerChannel.Settings(
            maxMessageBytes: configuration.limits.maxMessageBytes,
            maxPendingOutboundBytes: configuration.limits.maxPendingOutboundBytes,
            closeGrace: .seconds(2),
            requestTimeout: .milliseconds(Int64(configuration.requestTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)),
            api: HTTPAPICore(apps: apps, logger: logger),
            compression: configuration.compression)
        let plain = HTTPServerBuilder { responder in
            PusherServerChannel(responder: responder, apps: apps, settings: settings)
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

    /// The address clients connect to (`ws://HOST:PORT/app/KEY`, the key of the first app served now); a wildcard
    /// bind is shown as 127.0.0.1.
    public var webSocketURL: String { webSocketURL(key: apps.nodes[0].credentials.key) }

    /// The address clients of the app `key` connect to.
    public func webSocketURL(key: String) -> String {
        "\(configuration.tls == nil ? "ws" : "wss")://\(reachableHost):\(port)/app/\(key)"
    }

    /// The apps served now (after the last reload), in the order of the configuration.
    public var servedApps: [AppSettings] { apps.nodes.map(\.settings) }

    /// The hub of the app `id`, or `nil` when the server does not serve it.
    public func hub(forAppID id: String) -> PusherHub? { apps.node(forID: id)?.hub }
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
    /// The services stop in reverse order of their start (see `ServiceGroup`): the simulator's members leave,
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
    /// The apps cannot be served together (none, or two share a key or an id).
    case badApps(reason: String)

    public var description: String {
        switch self {
        case .couldNotStart(let host, let port, let reason):
            return "could not listen on \(host):\(port): \(reason)"
        case .badTLSFiles(let certificate, let key, let reason):
            return "could not use the TLS certificate \(certificate) with the key \(key): \(reason)"
        case .badRedisURL(let reason):
            return reason
        case .badApps(let reason):
            return "cannot serve these apps: \(reason)"
        }
    }
}
