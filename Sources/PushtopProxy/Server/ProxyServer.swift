import AsyncHTTPClient
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import PusherProtocol
import PushtopServer
import ServiceLifecycle

/// `pushtop proxy`: listens for an app's clients, relays each connection to the upstream server, passes the HTTP
/// API through, and serves the console feed and the fault control endpoint.
///
/// ```swift
/// let proxy = try await ProxyServer.start(ProxyConfiguration(port: 0, upstream: "ws://127.0.0.1:6001"))
/// print(proxy.port)
/// await proxy.shutdown()
/// ```
public final class ProxyServer: Sendable {
    /// The configuration it was started with.
    public let configuration: ProxyConfiguration
    /// The port bound (the ephemeral one for port 0).
    public let port: Int
    package let core: ProxyCore
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>
    private let httpClient: HTTPClient

    private init(
        configuration: ProxyConfiguration, port: Int, core: ProxyCore, serviceGroup: ServiceGroup,
        runTask: Task<Void, Never>, httpClient: HTTPClient
    ) {
        self.configuration = configuration
        self.port = port
        self.core = core
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.httpClient = httpClient
    }

    private enum Startup: Sendable {
        case bound(Int)
        case failed(String)
    }

    /// Starts listening; returns once the port is bound. The upstream is first dialled when a client connects.
    public static func start(_ configuration: ProxyConfiguration, logger: Logger = Logger(label: "pushtop.proxy"))
        async throws(ProxyError) -> ProxyServer
    {
        try await start(configuration, logger: logger, tap: nil)
    }

    /// Starts listening, reporting every upgrade, message and connection's end to `tap` (a judge of clients).
    package static func start(_ configuration: ProxyConfiguration, logger: Logger, tap: WireTap?)
        async throws(ProxyError) -> ProxyServer
    {
        guard configuration.allowRemote || ProxyConfiguration.isLoopback(configuration.host) else {
            throw .remoteNotAllowed(host: configuration.host)
        }
        let core = try ProxyCore(configuration: configuration, logger: logger, tap: tap)
        let httpClient = makeHTTPClient(configuration)
        let router = Router(context: BasicRequestContext.self)
        ProxyRoutes(core: core, client: httpClient).register(on: router)
        let (startup, report) = AsyncStream.makeStream(of: Startup.self)
        let application = Application(
            router: router,
            server: HTTPServerBuilder { responder in ProxyServerChannel(responder: responder, core: core) },
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "pushtop-proxy"),
            onServerRunning: { channel in
                try? await channel.pipeline.addHandler(AcceptFailureWatch(core: core), position: .first).get()
                report.yield(.bound(channel.localAddress?.port ?? configuration.port))
            },
            logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: application)], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(5)
        let serviceGroup = ServiceGroup(configuration: groupConfiguration)
        let runTask = serviceGroup.runTask(stoppedAtOnce: "the proxy stopped at once") { reason in
            report.yield(.failed(reason))
            report.finish()
        }
        var failure = "startup was cancelled"
        for await event in startup {
            switch event {
            case .bound(let port):
                logger.info(
                    "listening",
                    metadata: [
                        "host": "\(configuration.host)", "port": "\(port)", "upstream": "\(configuration.upstream)",
                    ])
                return ProxyServer(
                    configuration: configuration, port: port, core: core, serviceGroup: serviceGroup,
                    runTask: runTask, httpClient: httpClient)
            case .failed(let reason):
                failure = reason
            }
            break
        }
        runTask.cancel()
        await runTask.value
        try? await httpClient.shutdown()
        throw .couldNotStart(host: configuration.host, port: configuration.port, reason: failure)
    }

    /// The client for the upstream's HTTP API, trusting the configuration's CA file too.
    private static func makeHTTPClient(_ configuration: ProxyConfiguration) -> HTTPClient {
        var clientConfiguration = HTTPClient.Configuration()
        if let caFile = configuration.caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            clientConfiguration.tlsConfiguration = tls
        }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    /// Adds a fault rule now (as the control endpoint does).
    @discardableResult
    /// Returns the rule's id (the control endpoint's `DELETE` takes it).
    public func addFault(_ rule: FaultRule) -> Int { core.addFault(rule).id }

    /// Writes `text` to the client of relayed connection `number` as if the upstream had sent it (a `pusher:ping`
    /// a judge sends); `false` when that connection is not open.
    @discardableResult
    package func sendToClient(connection number: Int, text: String) -> Bool {
        guard let relay = core.relay(number: number) else { return false }
        relay.onLoop { $0.inject(text) }
        return true
    }

    /// Posts a client case's verdict to the console feed as it lands (`pushtop conform --client`).
    package func postVerdict(case id: String, verdict: String, message: String) {
        var row = ConsoleRow(type: .verdict, timeMs: ConsoleClock.nowMs())
        row.rule = id
        row.verdict = verdict
        row.reason = message
        core.post(row)
    }

    /// Drops the client's TCP connection of relayed connection `number`, stalled or not; `false` when it is not
    /// open.
    @discardableResult
    package func dropClient(connection number: Int) -> Bool {
        guard let relay = core.relay(number: number) else { return false }
        relay.onLoop { $0.dropClient() }
        return true
    }

    /// Removes a fault rule; `false` when no rule has that id.
    @discardableResult
    package func removeFault(id: Int) -> Bool { core.faults.remove(id: id) }

    /// The report `pushtop proxy --report` prints at exit.
    public var report: ProxyReport { ProxyReport(core: core) }

    /// Stops listening and ends the console feeds.
    public func shutdown() async {
        core.console.finishAll()
        await serviceGroup.triggerGracefulShutdown()
        await runTask.value
        try? await httpClient.shutdown()
    }
}
