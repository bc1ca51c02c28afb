import Logging
import ServiceLifecycle
import Synchronization

/// One app as the server runs it: its hub (with its own backplane, webhook dispatcher and limits) and the services
/// that keep the hub alive, in a ``ServiceGroup`` of its own so that a reload can start or stop one app alone.
final class AppNode: Sendable {
    /// The app's hub: every connection, channel and presence roster of this app, and nothing of another.
    let hub: PusherHub
    /// The app's services (webhooks, backplane, sweeps, simulator; the inbox too for an app added by a reload),
    /// stopped in reverse order.
    let group: ServiceGroup
    /// Whether the hub's inbox runs in ``group`` (an app added by a reload) or in the server's own group.
    let ownsInbox: Bool
    private let state: Mutex<State>

    private struct State {
        var settings: AppSettings
        var apiRequests: TokenBucket?
        /// What the HTTP API needs of the app, made once per settings (its verifier prepares the secret's key).
        var api: HTTPAPICore.App
    }

    /// What the HTTP API needs of this app (``HTTPAPICore``).
    var api: HTTPAPICore.App { state.withLock { $0.api } }

    private static func api(_ settings: AppSettings, hub: PusherHub) -> HTTPAPICore.App {
        HTTPAPICore.App(
            verifier: APIRequestVerifier(key: settings.credentials.key, secret: settings.credentials.secret),
            limits: settings.limits, hub: hub)
    }

    /// The app's current settings.
    var settings: AppSettings { state.withLock { $0.settings } }
    /// The app's credentials (they never change for a node: new credentials make a new node).
    let credentials: AppCredentials

    /// Builds the app's hub and backplane and its services.
    /// - Parameters:
    ///   - settings: the app.
    ///   - server: the server's configuration (timings, cluster, simulator).
    ///   - ownsInbox: run the hub's inbox in the app's own group (an app added while the server runs).
    ///   - simulate: run the simulator on this app.
    ///   - joined: called once the app's backplane joined its cluster (or serves alone).
    ///   - simulating: called once the simulator's first members joined.
    ///   - listening: ends once the server listens: the simulator starts then (`nil`: at once).
    init(
        _ settings: AppSettings, server: ServerConfiguration, ownsInbox: Bool, simulate: Bool, logger: Logger,
        joined: @escaping @Sendable () -> Void, simulating: @escaping @Sendable () -> Void,
        listening: AsyncStream<Void>? = nil
    ) throws(EmbeddedServerError) {
        var logger = logger
        if !server.apps.isEmpty { logger[metadataKey: "app_id"] = .string(settings.credentials.id) }
        let configuration = server.narrowed(to: settings)
        var backplane: any Backplane = LocalBackplane()
        if let cluster = configuration.cluster {
            do {
                backplane = try RedisBackplane(cluster: cluster, server: configuration, logger: logger)
            } catch {
                throw .badRedisURL(reason: error.description)
            }
        }
        let hub = PusherHub(configuration: configuration, backplane: backplane, logger: logger)
        var services: [any Service] = []
        if ownsInbox { services.append(HubInboxService(hub: hub)) }
        if let webhooks = hub.webhooks {
            services.append(WebhookService(webhooks: webhooks, drainTimeout: .seconds(2)))
        }
        if backplane.isClustered {
            services.append(BackplaneService(backplane: backplane, hub: hub, started: joined))
        }
        let interval = Duration.milliseconds(Int64(max(50, min(1000, server.activityTimeout * 250))))
        services.append(HubService(hub: hub, sweepInterval: interval))
        if simulate {
            let simulator = Simulator(
                hub: hub, app: settings.credentials, configuration: server.simulator, logger: logger)
            let service = SimulatorService(simulator: simulator, started: simulating)
            services.append(listening.map { GatedService(gate: $0, service: service) } ?? service)
        }
        var group = ServiceGroupConfiguration(services: services.map { .init(service: $0) }, logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(15)
        group.maximumCancellationDuration = .seconds(5)
        self.hub = hub
        self.group = ServiceGroup(configuration: group)
        self.ownsInbox = ownsInbox
        credentials = settings.credentials
        state = Mutex(
            State(
                settings: settings, apiRequests: Self.bucket(settings.limits),
                api: Self.api(settings, hub: hub)))
    }

    private static func bucket(_ limits: PusherLimits) -> TokenBucket? {
        limits.apiRequestsPerSecond.map { TokenBucket(perSecond: $0, now: .now) }
    }

    /// Takes new limits or a new enabled state (a reload): the hub's open connections stay.
    func update(_ settings: AppSettings) async {
        state.withLock { state in
            if state.settings.limits.apiRequestsPerSecond != settings.limits.apiRequestsPerSecond {
                state.apiRequests = Self.bucket(settings.limits)
            }
            state.settings = settings
            state.api = Self.api(settings, hub: hub)
        }
        await hub.apply(limits: settings.limits, enabled: settings.enabled)
    }

    /// Whether an HTTP API request of this app may go on: 403 when the app is disabled, 429 over its rate. Asked only
    /// once the request proved it was signed with the app's secret, so strangers never spend the app's quota.
    func admitAPIRequest(now: ContinuousClock.Instant = .now) throws(APIFailure) {
        let verdict = state.withLock { state -> Int? in
            guard state.settings.enabled else { return 403 }
            if state.apiRequests?.take(now: now) == false { return 429 }
            return nil
        }
        switch verdict {
        case 403?: throw APIFailure(status: 403, message: "App is disabled", rule: "app_disabled")
        case 429?:
            let rate = settings.limits.apiRequestsPerSecond ?? 0
            throw APIFailure(
                status: 429, message: "Rate limit exceeded: the app may make \(rate) API requests per second",
                rule: "api_requests_per_second")
        default: return
        }
    }
}
