import PusherProtocol

/// One app for ``runDashboard(apps:options:)``: the feed its connection posts to, where its commands go, its HTTP
/// API, and what the dashboard shows of it.
public struct DashboardApp: Sendable {
    /// The app's label (its profile's name), endpoint and credentials.
    public var setup: AppSetup
    /// Where the app's client posts its event batches and frames.
    public var feed: DashboardFeed
    /// Where this app's subscribe/unsubscribe/trigger/connect/disconnect go.
    public var backend: any DashboardBackend
    /// The app's HTTP API (channel browser, presence check), when its app id and secret are known.
    public var api: (any AppAPI)?
    /// The channels asked for (a recording's header names them).
    public var channels: [String]

    /// An app to run the dashboard on.
    public init(
        setup: AppSetup, feed: DashboardFeed, backend: any DashboardBackend, api: (any AppAPI)? = nil,
        channels: [String] = []
    ) {
        self.setup = setup
        self.feed = feed
        self.backend = backend
        self.api = api
        self.channels = channels
    }
}
