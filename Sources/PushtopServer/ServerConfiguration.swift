/// Everything the embedded server needs to know: where to listen, the one app it serves, and its timings.
///
/// The defaults match `pushtop serve`: loopback on port 6001, app id `1` (numeric, as the official server SDKs
/// require), key `pushtop-key`, secret `pushtop-secret`.
public struct ServerConfiguration: Sendable {
    /// Listen address. Keep the default (loopback) unless teammates must reach the server.
    public var host: String
    /// Listen port; `0` picks a free port (read it back from ``EmbeddedServer/port``).
    public var port: Int
    /// The app the server serves.
    public var app: AppCredentials
    /// Seconds of client silence before the server sends `pusher:ping` (sent as `activity_timeout`).
    public var activityTimeout: Double
    /// Seconds the server waits for `pusher:pong` before closing with 4201.
    public var pongTimeout: Double
    /// Pusher's quotas and size limits.
    public var limits: PusherLimits
    /// Serve the development-only endpoints `POST /pusher/auth` (signs any subscription) and
    /// `POST /pusher/user-auth` (signs any user in).
    public var demoAuthEndpoint: Bool
    /// Serve Prometheus metrics at `GET /metrics` (connections, channels, messages, deliveries, failures).
    public var metricsEndpoint: Bool = true
    /// Ignored: the HTTP API has one path, on the event loops (``EmbeddedServer`` serves every API request there).
    @available(*, deprecated, message: "the HTTP API has one path; this setting does nothing")
    public var apiFastPath: Bool {
        get { true }
        set {}
    }
    /// Send `pusher_internal:subscription_count` to subscribers of non-presence channels when the count changes.
    public var subscriptionCountEvents: Bool
    /// Run the traffic simulator in-process (members on `presence-lobby`, `ticker`, `chat`, an encrypted channel).
    public var simulate: Bool
    /// Tuning of the simulator when ``simulate`` is on.
    public var simulator: SimulatorConfiguration
    /// Where webhooks go (none by default).
    public var webhooks: WebhookConfiguration
    /// Serve `wss://` and `https://` with this certificate; plain `ws://` and `http://` when `nil`.
    public var tls: TLSFiles?
    /// Seconds an HTTP request may take to send its headers, and then its body, before the socket is closed.
    public var requestTimeout: Double
    /// Seconds an HTTP connection may sit idle between requests before it is closed.
    public var idleTimeout: Double
    /// Connections served at once; further ones wait in the listen backlog (a warning is logged when it is hit).
    public var maxConnections: Int
    /// Accept WebSocket compression (permessage-deflate, RFC 7692) from clients that offer it (on by default; off is
    /// `pushtop serve --no-compression`). Each event is then compressed once per event loop for all its compressed
    /// subscribers, and compressed client messages are held to ``PusherLimits/maxMessageBytes`` once inflated.
    public var compression: Bool = true
    /// Join a cluster of nodes that act as one app through Redis; `nil` (the default): one process, no Redis.
    public var cluster: ClusterConfiguration? = nil
    /// The apps served (`serve --apps-file`); when empty (the default) the server serves the one app of ``app``,
    /// ``limits`` and ``webhooks``. Keys and ids must be unique.
    public var apps: [AppSettings] = []

    /// The apps the server serves: ``apps``, or the one app of ``app``, ``limits`` and ``webhooks``.
    public var servedApps: [AppSettings] {
        apps.isEmpty ? [AppSettings(credentials: app, limits: limits, webhooks: webhooks)] : apps
    }

    /// This configuration narrowed to one app: its credentials, limits and webhooks replace the server's.
    func narrowed(to settings: AppSettings) -> ServerConfiguration {
        var copy = self
        copy.app = settings.credentials
        copy.limits = settings.limits
        copy.webhooks = settings.webhooks
        copy.apps = []
        return copy
    }

    /// A configuration; the defaults are `pushtop serve`'s: 127.0.0.1:6001, app `1`/`pushtop-key`/`pushtop-secret`.
    public init(
        host: String = "127.0.0.1",
        port: Int = 6001,
        app: AppCredentials = AppCredentials(),
        activityTimeout: Double = 120,
        pongTimeout: Double = 30,
        limits: PusherLimits = PusherLimits(),
        demoAuthEndpoint: Bool = true,
        subscriptionCountEvents: Bool = true,
        simulate: Bool = false,
        simulator: SimulatorConfiguration = SimulatorConfiguration(),
        webhooks: WebhookConfiguration = WebhookConfiguration(),
        tls: TLSFiles? = nil,
        requestTimeout: Double = 10,
        idleTimeout: Double = 60,
        maxConnections: Int = 20_000
    ) {
        self.webhooks = webhooks
        self.host = host
        self.port = port
        self.app = app
        self.activityTimeout = activityTimeout
        self.pongTimeout = pongTimeout
        self.limits = limits
        self.demoAuthEndpoint = demoAuthEndpoint
        self.subscriptionCountEvents = subscriptionCountEvents
        self.simulate = simulate
        self.simulator = simulator
        self.tls = tls
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}

/// A PEM certificate (chain) and its private key, for `wss://` and `https://`.
public struct TLSFiles: Sendable, Hashable {
    /// The PEM file of the certificate, or of the chain with the server's certificate first.
    public var certificatePath: String
    /// The PEM file of the certificate's private key.
    public var keyPath: String

    /// The certificate (chain) at `certificatePath` and its private key at `keyPath`, both PEM files.
    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }
}

/// The credentials of the one app the server serves.
public struct AppCredentials: Sendable, Hashable {
    /// Numeric app id, as Pusher's are (the official server SDKs refuse other ids).
    public var id: String
    /// The key clients connect with (`/app/{key}`).
    public var key: String
    /// The secret that signs subscriptions and API requests.
    public var secret: String
    /// 32-byte master key of `private-encrypted-` channels: the demo auth endpoint derives each channel's
    /// shared secret from it, and the simulator encrypts with it.
    public var encryptionMasterKey: [UInt8]

    /// The master key used when none is given: fixed and public, so it is for demos only.
    public static let demoEncryptionMasterKey: [UInt8] = Array("pushtop-demo-encryption-key-0032".utf8)

    /// An app; without `encryptionMasterKey` the public demo key is used (demos only).
    public init(
        id: String = "1", key: String = "pushtop-key", secret: String = "pushtop-secret",
        encryptionMasterKey: [UInt8] = AppCredentials.demoEncryptionMasterKey
    ) {
        self.id = id
        self.key = key
        self.secret = secret
        self.encryptionMasterKey = encryptionMasterKey
    }
}
