import PusherChannels

/// The server under test: its nodes, the app, and what the run may do.
public struct ConformanceTarget: Sendable {
    /// One node: where its WebSocket and its HTTP API answer (one `host:port` for most servers; Pusher itself
    /// splits `ws-CLUSTER` and `api-CLUSTER`).
    public struct Node: Sendable, Hashable {
        /// `ws://host:port` or `wss://host:port`, no path.
        public var webSocketBase: String
        /// Where the HTTP API answers.
        public var api: PusherAPIConfiguration
        /// How the node is named in messages (`127.0.0.1:6001`).
        public var name: String

        public init(webSocketBase: String, api: PusherAPIConfiguration, name: String) {
            self.webSocketBase = webSocketBase
            self.api = api
            self.name = name
        }

        /// One host and port for both (pushtop serve, soketi, Reverb, sockudo).
        public static func single(host: String, port: Int, useTLS: Bool, appID: String, key: String, secret: String)
            -> Node
        {
            let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            return Node(
                webSocketBase: "\(useTLS ? "wss" : "ws")://\(hostPart):\(port)",
                api: PusherAPIConfiguration(
                    appID: appID, key: key, secret: secret, host: host, port: port, useTLS: useTLS),
                name: "\(hostPart):\(port)")
        }

        /// Pusher's hosted service in `cluster` (eu, mt1, ...).
        public static func pusher(cluster: String, appID: String, key: String, secret: String) -> Node {
            Node(
                webSocketBase: "wss://ws-\(cluster).pusher.com:443",
                api: .cluster(cluster, appID: appID, key: key, secret: secret), name: "Pusher (\(cluster))")
        }
    }

    /// The nodes; the first is where single-node cases run.
    public var nodes: [Node]
    public var appID: String
    public var key: String
    public var secret: String
    /// A PEM file of extra certificate authorities for `wss://` and `https://`.
    public var caFile: String?
    /// Run the cases that open many connections or send a lot (the 100-member limit, fan-out to hundreds).
    public var destructive: Bool
    /// Seconds a case waits for a frame or a webhook that should come at once.
    public var patience: Double
    /// Run the cases that wait on the server's own clocks, with its real timings (`--long`).
    public var long: Bool = false

    public init(
        nodes: [Node], appID: String, key: String, secret: String, caFile: String? = nil,
        destructive: Bool = false, patience: Double = 3
    ) {
        self.nodes = nodes
        self.appID = appID
        self.key = key
        self.secret = secret
        self.caFile = caFile
        self.destructive = destructive
        self.patience = patience
    }
}
