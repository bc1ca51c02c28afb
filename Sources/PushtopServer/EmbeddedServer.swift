import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// The embedded Pusher-protocol server: WebSocket `/app/{key}` and the HTTP API `/apps/{id}/...` on one port.
///
/// ```swift
/// let server = try await EmbeddedServer.start(ServerConfiguration(port: 0, simulate: true))
/// print(server.webSocketURL)   // ws://127.0.0.1:41234/app/pushtop-key
/// await server.shutdown()
/// ```
public final class EmbeddedServer: Sendable {
    public let configuration: ServerConfiguration
    /// The hub: publish events and read channel state in-process through it.
    public let hub: PusherHub
    /// The port actually bound (the ephemeral one when the configuration asked for port 0).
    public let port: Int

    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>
    private let sweepTask: Task<Void, Never>
    private let simulator: Simulator?
    private let logger: Logger

    private init(
        configuration: ServerConfiguration, hub: PusherHub, port: Int, serviceGroup: ServiceGroup,
        runTask: Task<Void, Never>, sweepTask: Task<Void, Never>, simulator: Simulator?, logger: Logger
    ) {
        self.configuration = configuration
        self.hub = hub
        self.port = port
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.sweepTask = sweepTask
        self.simulator = simulator
        self.logger = logger
    }

    /// Starts listening; returns once the port is bound.
    /// - Throws: ``EmbeddedServerError/couldNotStart(host:port:reason:)`` when the address cannot be bound.
    public static func start(
        _ configuration: ServerConfiguration, logger: Logger = Logger(label: "pushtop.server")
    ) async throws(EmbeddedServerError) -> EmbeddedServer {
        let hub = PusherHub(configuration: configuration, logger: logger)

        let router = Router(context: BasicRequestContext.self)
        PusherHTTPAPI(hub: hub, app: configuration.app, limits: configuration.limits).register(on: router)
        if configuration.demoAuthEndpoint {
            DemoAuthEndpoint(app: configuration.app).register(on: router)
        }
        if configuration.metricsEndpoint {
            MetricsEndpoint(hub: hub).register(on: router)
        }
        let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
        WebSocketEndpoint(hub: hub, limits: configuration.limits, closeGrace: .seconds(2)).register(on: webSocketRouter)

        let (started, startedContinuation) = AsyncStream.makeStream(of: Result<Int, EmbeddedServerError>.self)
        let webSocketConfiguration = WebSocketServerConfiguration(
            maxFrameSize: configuration.limits.maxMessageBytes, autoPing: .disabled, closeTimeout: .seconds(2))
        let application = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: webSocketRouter,
                configuration: .init(http1: .init(idleTimeout: nil), ws: webSocketConfiguration)),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "pushtop"),
            onServerRunning: { channel in
                startedContinuation.yield(.success(channel.localAddress?.port ?? configuration.port))
            },
            logger: logger
        )
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
                throw error
            }
            break
        }
        guard let boundPort else {
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
            sweepTask: sweepTask, simulator: simulator, logger: logger)
    }

    /// The address clients connect to (`ws://HOST:PORT/app/KEY`); a wildcard bind is shown as 127.0.0.1.
    public var webSocketURL: String { "ws://\(reachableHost):\(port)/app/\(configuration.app.key)" }
    /// Base URL of the HTTP API (`http://HOST:PORT`).
    public var httpURL: String { "http://\(reachableHost):\(port)" }
    /// The demo authorization endpoint, when enabled.
    public var authEndpointURL: String? { configuration.demoAuthEndpoint ? "\(httpURL)/pusher/auth" : nil }

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
        await serviceGroup.triggerGracefulShutdown()
        let runTask = self.runTask
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(5))
            if !Task.isCancelled { runTask.cancel() }
        }
        await runTask.value
        watchdog.cancel()
        logger.info("stopped")
    }
}

/// Why the embedded server could not run.
public enum EmbeddedServerError: Error, Sendable, CustomStringConvertible {
    case couldNotStart(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .couldNotStart(let host, let port, let reason):
            return "could not listen on \(host):\(port): \(reason)"
        }
    }
}
