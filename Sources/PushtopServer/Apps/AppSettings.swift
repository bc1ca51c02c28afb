/// One app of a server that serves several (`pushtop serve --apps-file`): its credentials, whether it is enabled,
/// its quotas and its webhooks.
///
/// An app is the unit of isolation: each has its own hub (connections, channels, presence), its own backplane
/// (Redis keys and pub/sub channels under its id), its own webhook dispatcher and its own metrics label.
public struct AppSettings: Sendable, Hashable {
    /// The id, key and secret (and the encryption master key).
    public var credentials: AppCredentials
    /// A name for people (logs, the startup banner); the id when none is given.
    public var name: String
    /// When `false`, connections are refused with 4003 and the HTTP API answers 403, as Pusher does.
    public var enabled: Bool
    /// Pusher's limits, and the app's quotas (``PusherLimits/maxConnections``,
    /// ``PusherLimits/clientEventsEnabled``, ``PusherLimits/apiRequestsPerSecond``).
    public var limits: PusherLimits
    /// Where the app's webhooks go.
    public var webhooks: WebhookConfiguration

    /// An app; `name` defaults to the id.
    public init(
        credentials: AppCredentials, name: String? = nil, enabled: Bool = true, limits: PusherLimits = PusherLimits(),
        webhooks: WebhookConfiguration = WebhookConfiguration()
    ) {
        self.credentials = credentials
        self.name = name ?? credentials.id
        self.enabled = enabled
        self.limits = limits
        self.webhooks = webhooks
    }

    /// Whether a running app can take these settings in place (same credentials and webhooks): only its limits
    /// or its enabled state changed, so its connections stay.
    func canBeAppliedInPlace(to running: AppSettings) -> Bool {
        credentials == running.credentials && webhooks == running.webhooks
    }
}
