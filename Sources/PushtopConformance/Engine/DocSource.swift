/// The Pusher documentation a case follows: the page and the section, with its address.
public struct DocSource: Sendable, Hashable, Codable {
    /// The page's title, e.g. "Pusher Channels Protocol".
    public var page: String
    /// The section on that page, e.g. "Subscription events".
    public var section: String
    /// The page's address, with the section's anchor where Pusher has one.
    public var url: String

    public init(page: String, section: String, url: String) {
        self.page = page
        self.section = section
        self.url = url
    }
}

extension DocSource {
    static let protocolPage = "https://pusher.com/docs/channels/library_auth_reference/pusher-websockets-protocol/"
    static let restPage = "https://pusher.com/docs/channels/library_auth_reference/rest-api/"

    /// A section of the protocol-7 page (the client cases' pages too).
    package static func protocol7(_ section: String, anchor: String) -> DocSource {
        DocSource(page: "Pusher Channels Protocol", section: section, url: protocolPage + "#" + anchor)
    }

    /// A section of the HTTP API reference.
    static func rest(_ section: String, anchor: String) -> DocSource {
        DocSource(page: "HTTP API reference", section: section, url: restPage + "#" + anchor)
    }

    static let presence = DocSource(
        page: "Presence channels", section: "Presence channels",
        url: "https://pusher.com/docs/channels/using_channels/presence-channels/")
    static let presenceLimits = DocSource(
        page: "Presence channels", section: "Limits (100 members, 1 KB user info, 128-character user id)",
        url: "https://pusher.com/docs/channels/using_channels/presence-channels/#limits")
    static let clientEvents = DocSource(
        page: "Events", section: "Triggering client events",
        url: "https://pusher.com/docs/channels/using_channels/events/#triggering-client-events")
    static let excludingRecipients = DocSource(
        page: "Excluding event recipients", section: "Excluding event recipients",
        url: "https://pusher.com/docs/channels/server_api/excluding-event-recipients/")
    static let channelNames = DocSource(
        page: "Channels", section: "Channel naming conventions",
        url: "https://pusher.com/docs/channels/using_channels/channels/#channel-naming-conventions")
    static let limits = DocSource(
        page: "HTTP API reference", section: "Publishing limits (10 KB, 100 channels, 10 events a batch)",
        url: restPage + "#events")
    static let userAuthentication = DocSource(
        page: "User authentication", section: "User authentication",
        url: "https://pusher.com/docs/channels/using_channels/user-authentication/")
    static let sendingToUsers = DocSource(
        page: "Sending events to authenticated users", section: "Sending events to authenticated users",
        url: "https://pusher.com/docs/channels/server_api/authenticating-users/#sending-events-to-authenticated-users")
    static let watchlist = DocSource(
        page: "Watchlist events", section: "Watchlist events",
        url: "https://pusher.com/docs/channels/using_channels/watchlist-events/")
    static let terminate = DocSource(
        page: "Terminating user connections", section: "Terminating user connections",
        url: "https://pusher.com/docs/channels/server_api/terminating-user-connections/")
    static let cacheChannels = DocSource(
        page: "Cache channels", section: "Cache channels",
        url: "https://pusher.com/docs/channels/using_channels/cache-channels/")
    static let subscriptionCount = DocSource(
        page: "Events", section: "Subscription count event",
        url: "https://pusher.com/docs/channels/using_channels/events/#subscription_count-event")
    static let encrypted = DocSource(
        page: "Encrypted channels", section: "End-to-end encrypted channels",
        url: "https://pusher.com/docs/channels/using_channels/encrypted-channels/")
    static func webhooks(_ section: String, anchor: String) -> DocSource {
        DocSource(
            page: "Webhooks", section: section,
            url: "https://pusher.com/docs/channels/server_api/webhooks/#" + anchor)
    }
    static let rfc6455 = DocSource(
        page: "RFC 6455 (The WebSocket Protocol)", section: "5.5 Control frames; 5.6 Data frames",
        url: "https://www.rfc-editor.org/rfc/rfc6455#section-5.5")
    static let clusterDocs = DocSource(
        page: "Pusher Channels Protocol",
        section: "One app, any connection (Pusher is one app however many nodes serve it)",
        url: protocolPage)
}
