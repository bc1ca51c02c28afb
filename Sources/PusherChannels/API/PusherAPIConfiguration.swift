/// Where and as which app the HTTP API client talks: Pusher (`api-CLUSTER.pusher.com` over HTTPS) or any
/// Pusher-compatible server (pushtop serve, soketi, Reverb).
public struct PusherAPIConfiguration: Sendable, Hashable {
    public var appID: String
    public var key: String
    public var secret: String
    public var host: String
    public var port: Int
    public var useTLS: Bool
    /// Seconds before a request is abandoned.
    public var timeout: Double

    public init(
        appID: String, key: String, secret: String, host: String = "127.0.0.1", port: Int = 6001,
        useTLS: Bool = false, timeout: Double = 10
    ) {
        self.appID = appID
        self.key = key
        self.secret = secret
        self.host = host
        self.port = port
        self.useTLS = useTLS
        self.timeout = timeout
    }

    /// Pusher's hosted API for a cluster (e.g. `eu`, `mt1`), over HTTPS.
    public static func cluster(_ cluster: String, appID: String, key: String, secret: String) -> PusherAPIConfiguration {
        PusherAPIConfiguration(
            appID: appID, key: key, secret: secret, host: "api-\(cluster).pusher.com", port: 443, useTLS: true)
    }

    /// `http(s)://host:port`.
    public var baseURL: String {
        let scheme = useTLS ? "https" : "http"
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart):\(port)"
    }
}
