import Logging

/// Where and how a client connects.
public struct PusherClientOptions: Sendable {
    /// The app key.
    public var key: String
    /// The cluster; the host is `ws-CLUSTER.pusher.com` unless ``host`` is set.
    public var cluster: String
    /// A custom WebSocket host (soketi, Reverb, the embedded server), like pusher-js's `wsHost`.
    public var host: String?
    /// A custom port; default 443 with TLS, 80 without.
    public var port: Int?
    /// Timeouts and reconnection (TLS is ``ConnectionConfiguration/useTLS``).
    public var connection: ConnectionConfiguration
    /// Authorizes private, presence and encrypted channels.
    public var authorizer: (any Authorizer)?
    /// Authenticates the user for ``PusherClient/signIn()`` (pusher-js's `userAuthentication`).
    public var userAuthenticator: (any UserAuthenticator)?
    /// Frames larger than this (bytes) are reported and skipped.
    public var maxFrameSize: Int
    /// The `client` query parameter sent to the server.
    public var clientName: String
    /// The `version` query parameter sent to the server.
    public var clientVersion: String
    public var logger: Logger

    public init(key: String, cluster: String = "mt1", host: String? = nil, port: Int? = nil,
                connection: ConnectionConfiguration = .init(), authorizer: (any Authorizer)? = nil,
                maxFrameSize: Int = 1 << 20, clientName: String = "pushtop-swift",
                clientVersion: String = PusherClient.version,
                logger: Logger = Logger(label: "pushtop.client"),
                userAuthenticator: (any UserAuthenticator)? = nil) {
        self.userAuthenticator = userAuthenticator
        self.key = key
        self.cluster = cluster
        self.host = host
        self.port = port
        self.connection = connection
        self.authorizer = authorizer
        self.maxFrameSize = maxFrameSize
        self.clientName = clientName
        self.clientVersion = clientVersion
        self.logger = logger
    }

    /// The host connected to.
    public var resolvedHost: String { host ?? "ws-\(cluster).pusher.com" }

    /// The WebSocket URL for a connection with or without TLS.
    public func url(useTLS: Bool) -> String {
        let port = self.port ?? (useTLS ? 443 : 80)
        let scheme = useTLS ? "wss" : "ws"
        let defaultPort = useTLS ? 443 : 80
        let hostPart = resolvedHost.contains(":") ? "[\(resolvedHost)]" : resolvedHost
        let portPart = port == defaultPort ? "" : ":\(port)"
        return "\(scheme)://\(hostPart)\(portPart)/app/\(key)?protocol=7&client=\(clientName)&version=\(clientVersion)&flash=false"
    }
}
