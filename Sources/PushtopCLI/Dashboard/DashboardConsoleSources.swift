import PusherChannels
import PushtopConfig
import PushtopDashboard

extension ConsoleSources {
    /// The debug console's sources for the dashboard: the debug feed of each node it connects to (a `pushtop
    /// serve` has one; another server answers 404 and the console says what it cannot see), when the app's secret
    /// and id are known; the webhook receiver with `--webhook-listen`. `nil` when there is none.
    /// - Parameters:
    ///   - nodes: the nodes the dashboard connects to (`--node`, or its one host and port); empty on Pusher itself
    ///     (`options.host` nil), which has no feed.
    static func dashboard(
        nodes: [NodeAddress], options: PusherClientOptions, credentials: KnownCredentials?,
        webhookListen: NodeAddress?
    ) -> ConsoleSources? {
        var sources = ConsoleSources()
        if let credentials, let appID = credentials.appID {
            if options.host == nil {
                sources.absent.append(
                    ConsoleSourceStatus(
                        name: "Pusher (\(options.cluster))", kind: .serverFeed,
                        state: .unavailable(
                            "Pusher has no debug feed for pushtop (its Debug Console is on its web dashboard); "
                                + "receive its webhooks: pushtop --webhook-listen HOST:PORT")))
            } else {
                sources.feeds = nodes.map {
                    ConsoleFeedEndpoint(
                        host: $0.host, port: $0.port, tls: options.connection.useTLS, appID: appID,
                        key: credentials.key, secret: credentials.secret)
                }
            }
        }
        if let webhookListen {
            sources.webhooks = WebhookReceiverSettings(
                host: webhookListen.host, port: webhookListen.port,
                credentials: credentials.map {
                    [WebhookCredential(appID: $0.appID, key: $0.key, secret: $0.secret)]
                } ?? [])
        }
        return sources.isEmpty ? nil : sources
    }

    /// The node a single-connection dashboard connects to (`nil` on Pusher itself).
    static func node(of options: PusherClientOptions) -> [NodeAddress] {
        guard let host = options.host else { return [] }
        return [NodeAddress(host: host, port: options.port ?? (options.connection.useTLS ? 443 : 80))]
    }
}
