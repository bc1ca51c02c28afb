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
    /// A path before `/app/KEY` in the WebSocket URL, for a server behind a reverse proxy that routes by path
    /// (`/ws` connects to `wss://host/ws/app/KEY`), like pusher-js's `wsPath` and PusherSwift's `path`. Written
    /// with or without its leading or trailing slash; `nil` or empty connects to `/app/KEY`.
    public var path: String? {
        get { pathPrefix.isEmpty ? nil : pathPrefix }
        set { pathPrefix = Self.normalizedPathPrefix(newValue) }
    }
    /// ``path`` as it goes into the URL: empty, or a leading `/` and no trailing one.
    private var pathPrefix = ""
    /// Timeouts and reconnection (TLS is ``ConnectionConfiguration/useTLS``).
    public var connection: ConnectionConfiguration
    /// Authorizes private, presence and encrypted channels.
    public var authorizer: (any Authorizer)?
    /// Authenticates the user for ``PusherClient/signIn()`` (pusher-js's `userAuthentication`).
    public var userAuthenticator: (any UserAuthenticator)?
    /// How each connection's socket is set up: the largest frame decoded (larger ones are reported and skipped),
    /// extra certificate authorities for `wss://` (a private CA, or the self-signed certificate of a local
    /// `pushtop serve --tls-cert`), whether each event keeps its frame's exact text without a frame tap, and
    /// read coalescing.
    public var transport: TransportSettings
    /// The `client` query parameter sent to the server.
    public var clientName: String
    /// The `version` query parameter sent to the server.
    public var clientVersion: String
    /// Where the client and its transport log (label `pushtop.client` by default).
    public var logger: Logger

    /// Options for the app `key`; every other setting has a default (cluster `mt1`, TLS, 1 MiB frames).
    /// - Parameters:
    ///   - key: the app key.
    ///   - cluster: the cluster, used for the host when `host` is `nil`.
    ///   - host: a custom WebSocket host.
    ///   - port: a custom port; 443 with TLS, 80 without when `nil`.
    ///   - path: a path before `/app/KEY` (a reverse proxy's location, such as `/ws`); none by default.
    ///   - connection: timeouts, TLS and reconnection.
    ///   - authorizer: authorizes private, presence and encrypted channels; none by default.
    ///   - maxFrameSize: the largest frame accepted, in bytes.
    ///   - caFile: a PEM file of extra certificate authorities to trust.
    ///   - keepRawFrames: keep each event's frame text even without a frame tap.
    ///   - clientName: the `client` query parameter.
    ///   - clientVersion: the `version` query parameter.
    ///   - logger: where the client logs.
    ///   - userAuthenticator: authenticates the user for ``PusherClient/signIn()``; none by default.
    public init(
        key: String, cluster: String = "mt1", host: String? = nil, port: Int? = nil, path: String? = nil,
        connection: ConnectionConfiguration = .init(), authorizer: (any Authorizer)? = nil,
        maxFrameSize: Int = 1 << 20, caFile: String? = nil, keepRawFrames: Bool = false,
        clientName: String = "pushtop-swift",
        clientVersion: String = PusherClient.version,
        logger: Logger = Logger(label: "pushtop.client"),
        userAuthenticator: (any UserAuthenticator)? = nil
    ) {
        self.userAuthenticator = userAuthenticator
        self.key = key
        self.cluster = cluster
        self.host = host
        self.port = port
        self.pathPrefix = Self.normalizedPathPrefix(path)
        self.connection = connection
        self.authorizer = authorizer
        transport = TransportSettings(
            maxMessageSize: max(16 << 20, maxFrameSize), maxFrameSize: maxFrameSize,
            caFile: caFile, keepRawFrames: keepRawFrames)
        self.clientName = clientName
        self.clientVersion = clientVersion
        self.logger = logger
    }

    /// The host connected to.
    public var resolvedHost: String { host ?? "ws-\(cluster).pusher.com" }

    /// `/segment/…` with one leading slash and none trailing; empty for `nil`, `""` and `/`.
    static func normalizedPathPrefix(_ path: String?) -> String {
        let trimmed = (path ?? "").split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        return trimmed.isEmpty ? "" : "/" + trimmed
    }

    /// The WebSocket URL for a connection with or without TLS: `/app/KEY` after ``path``.
    public func url(useTLS: Bool) -> String {
        let port = self.port ?? (useTLS ? 443 : 80)
        let scheme = useTLS ? "wss" : "ws"
        let defaultPort = useTLS ? 443 : 80
        let hostPart = resolvedHost.contains(":") ? "[\(resolvedHost)]" : resolvedHost
        let portPart = port == defaultPort ? "" : ":\(port)"
        return
            "\(scheme)://\(hostPart)\(portPart)\(pathPrefix)/app/\(key)?protocol=7&client=\(clientName)&version=\(clientVersion)&flash=false"
    }
}
