import PusherProtocol

/// Connection settings from a config file profile or the environment: every field optional, so layers
/// (file defaults, a `[profiles.NAME]` table, environment variables, command-line options) can be merged.
///
/// The names match `watch`'s connection options (`auth_endpoint` ↔ `--auth-endpoint`).
public struct Profile: Sendable, Hashable, CustomStringConvertible {
    public var key: String?
    public var cluster: String?
    public var host: String?
    public var port: Int?
    public var tls: Bool?
    public var authEndpoint: String?
    public var authHeaders: [String: String]?
    public var authParams: [String: String]?
    /// The app secret, for signing auth locally. Never printed: ``description`` redacts it.
    public var secret: String?
    /// The app id (numeric, as Pusher's): with the secret, the dashboard's channel browser and presence check
    /// use the HTTP API.
    public var appID: String?
    public var userID: String?
    public var userInfo: JSONValue?
    public var activityTimeout: Double?
    public var pongTimeout: Double?
    /// The reconnection policy: `exponential`, `linear` or `none`.
    public var reconnect: String?
    public var maxRetries: Int?
    public var minDelay: Double?
    public var maxDelay: Double?
    public var theme: String?
    public var channels: [String]?
    /// The user authentication endpoint for signing in (`--user-auth-endpoint`).
    public var userAuthEndpoint: String?
    /// Sign the user in on every connection (`--sign-in`).
    public var signIn: Bool?
    /// User ids the signed-in user watches (`--watchlist`).
    public var watchlist: [String]?
    /// A PEM file of extra certificate authorities to trust for `wss://` (`--ca-file`).
    public var caFile: String?
    /// The nodes of one app behind a load balancer (`HOST:PORT` each): one connection per node (`--node`).
    public var nodes: [String]?

    public init() {}

    /// `self` with the fields it leaves empty taken from `base`.
    public func merged(over base: Profile) -> Profile {
        var out = self
        out.key = key ?? base.key
        out.cluster = cluster ?? base.cluster
        out.host = host ?? base.host
        out.port = port ?? base.port
        out.tls = tls ?? base.tls
        out.authEndpoint = authEndpoint ?? base.authEndpoint
        out.authHeaders = authHeaders ?? base.authHeaders
        out.authParams = authParams ?? base.authParams
        out.secret = secret ?? base.secret
        out.appID = appID ?? base.appID
        out.userID = userID ?? base.userID
        out.userInfo = userInfo ?? base.userInfo
        out.activityTimeout = activityTimeout ?? base.activityTimeout
        out.pongTimeout = pongTimeout ?? base.pongTimeout
        out.reconnect = reconnect ?? base.reconnect
        out.maxRetries = maxRetries ?? base.maxRetries
        out.minDelay = minDelay ?? base.minDelay
        out.maxDelay = maxDelay ?? base.maxDelay
        out.theme = theme ?? base.theme
        out.channels = channels ?? base.channels
        out.userAuthEndpoint = userAuthEndpoint ?? base.userAuthEndpoint
        out.signIn = signIn ?? base.signIn
        out.watchlist = watchlist ?? base.watchlist
        out.caFile = caFile ?? base.caFile
        out.nodes = nodes ?? base.nodes
        return out
    }

    /// Whether an app is configured (a key, or a host to connect to).
    public var isConfigured: Bool { key != nil }

    /// The profile with the secret replaced, safe to print.
    public var description: String {
        var parts: [String] = []
        if let key { parts.append("key=\(key)") }
        if let cluster { parts.append("cluster=\(cluster)") }
        if let host { parts.append("host=\(host)") }
        if let port { parts.append("port=\(port)") }
        if let tls { parts.append("tls=\(tls)") }
        if let authEndpoint { parts.append("auth_endpoint=\(authEndpoint)") }
        if let authHeaders { parts.append("auth_headers=\(authHeaders.keys.sorted())") }
        if secret != nil { parts.append("secret=<redacted>") }
        if let appID { parts.append("app_id=\(appID)") }
        if let userID { parts.append("user_id=\(userID)") }
        if let channels { parts.append("channels=\(channels)") }
        if let theme { parts.append("theme=\(theme)") }
        if let userAuthEndpoint { parts.append("user_auth_endpoint=\(userAuthEndpoint)") }
        if let signIn { parts.append("sign_in=\(signIn)") }
        if let watchlist { parts.append("watchlist=\(watchlist)") }
        if let caFile { parts.append("ca_file=\(caFile)") }
        if let nodes { parts.append("nodes=\(nodes)") }
        return "Profile(" + parts.joined(separator: ", ") + ")"
    }
}
