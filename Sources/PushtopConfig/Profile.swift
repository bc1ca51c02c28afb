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
        func fill<Value>(_ field: WritableKeyPath<Profile, Value?>) {
            if out[keyPath: field] == nil { out[keyPath: field] = base[keyPath: field] }
        }
        fill(\.key); fill(\.cluster); fill(\.host); fill(\.port); fill(\.tls)
        fill(\.authEndpoint); fill(\.authHeaders); fill(\.authParams); fill(\.secret); fill(\.appID)
        fill(\.userID); fill(\.userInfo); fill(\.activityTimeout); fill(\.pongTimeout); fill(\.reconnect)
        fill(\.maxRetries); fill(\.minDelay); fill(\.maxDelay); fill(\.theme); fill(\.channels)
        fill(\.userAuthEndpoint); fill(\.signIn); fill(\.watchlist); fill(\.caFile); fill(\.nodes)
        return out
    }

    /// Whether an app is configured (a key, or a host to connect to).
    public var isConfigured: Bool { key != nil }

    /// The profile with the secret replaced, safe to print.
    public var description: String {
        func text(_ value: (any Sendable)?) -> String? { value.map { "\($0)" } }
        let fields: [(String, String?)] = [
            ("key", key), ("cluster", cluster), ("host", host), ("port", text(port)), ("tls", text(tls)),
            ("auth_endpoint", authEndpoint), ("auth_headers", text(authHeaders?.keys.sorted())),
            ("secret", secret == nil ? nil : "<redacted>"), ("app_id", appID), ("user_id", userID),
            ("channels", text(channels)), ("theme", theme), ("user_auth_endpoint", userAuthEndpoint),
            ("sign_in", text(signIn)), ("watchlist", text(watchlist)), ("ca_file", caFile), ("nodes", text(nodes)),
        ]
        return "Profile(" + fields.compactMap { name, value in value.map { "\(name)=\($0)" } }.joined(separator: ", ")
            + ")"
    }
}
