/// Where and as which app the HTTP API client talks: Pusher (`api-CLUSTER.pusher.com` over HTTPS) or any
/// Pusher-compatible server (pushtop serve, soketi, Reverb).
public struct PusherAPIConfiguration: Sendable, Hashable {
    /// The app id (numeric on Pusher): the `{id}` in `/apps/{id}/...`.
    public var appID: String
    /// The app key, sent as `auth_key`.
    public var key: String
    /// The app secret that signs each request; it is never sent.
    public var secret: String
    /// The API host: `api-CLUSTER.pusher.com` for Pusher, the server's host otherwise.
    public var host: String
    /// The API port: 443 for Pusher; a compatible server usually serves the API on its WebSocket port.
    public var port: Int
    /// Whether to use HTTPS.
    public var useTLS: Bool
    /// Seconds before a request is abandoned.
    public var timeout: Double

    /// The API of a Pusher-compatible server at `host:port` (by default a local `pushtop serve`).
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
    public static func cluster(_ cluster: String, appID: String, key: String, secret: String) -> PusherAPIConfiguration
    {
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
