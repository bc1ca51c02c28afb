import PusherProtocol

/// One open app (one profile's connection) as the dashboard keeps it: its connection, rosters, watchlist,
/// frames, authorizations, channel browser and presence check. Channels and log entries carry their app's
/// index instead (``ChannelInfo/app``, ``LogEntry/app``).
public struct AppState: Sendable {
    /// The app's short name (its profile's name); empty when only one app is open.
    public var label: String
    /// What the connection pane shows of the app's connection.
    public internal(set) var connection = ConnectionInfo()
    /// The app's presence rosters, per channel.
    public internal(set) var rosters: [String: MemberRoster] = [:]
    /// The signed-in user's watchlist: who is watched and who of them is online.
    public internal(set) var watchlist = Watchlist()
    /// The wire inspector's frames and selection.
    public internal(set) var wire: WireInspectorState
    /// Whether the connection has a frame tap (frames have arrived, or the runner said so).
    public var framesAvailable = false
    /// What each subscription's authorization did, per channel (the newest attempt).
    public internal(set) var auth = AuthInspectorState()
    /// The channel browser's list and selection.
    public internal(set) var browser = ChannelBrowserState()
    /// The server's rosters of presence channels, to compare with the client's.
    public internal(set) var presenceCheck = PresenceCheckState()
    /// The app's key and secret when known (the auth inspector's signature check). Never drawn or recorded.
    public var credentials: KnownCredentials?
    /// Whether the app's HTTP API is reachable (channel browser, presence check).
    public var hasAPI: Bool

    /// An app with nothing received yet.
    public init(setup: AppSetup, frameCapacity: Int) {
        label = setup.label
        connection.endpoint = setup.endpoint
        wire = WireInspectorState(capacity: frameCapacity)
        credentials = setup.credentials
        hasAPI = setup.hasAPI
    }
}

/// What the dashboard knows of an app before connecting: its name, where it connects, its credentials.
public struct AppSetup: Sendable {
    /// The app's short name (its profile's name).
    public var label: String
    /// Host, port and TLS (e.g. `ws-eu.pusher.com:443 TLS`).
    public var endpoint: String
    /// The app's key and secret when known (the auth inspector's signature check).
    public var credentials: KnownCredentials?
    /// Whether the app's HTTP API is reachable (app id and secret known).
    public var hasAPI: Bool

    /// An app's setup.
    public init(label: String, endpoint: String = "", credentials: KnownCredentials? = nil, hasAPI: Bool = false) {
        self.label = label
        self.endpoint = endpoint
        self.credentials = credentials
        self.hasAPI = hasAPI
    }
}
