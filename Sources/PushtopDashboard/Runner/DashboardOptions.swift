import PusherProtocol

/// How to run the dashboard.
public struct DashboardOptions: Sendable {
    /// `--theme NAME|PATH`; `nil` picks `default` (or `mono` when `NO_COLOR` is set).
    public var theme: String?
    /// The process environment (`NO_COLOR`, `XDG_CONFIG_HOME`, `HOME`).
    public var environment: [String: String]
    /// Entries the event log keeps.
    public var logCapacity: Int
    /// Where Ctrl-S writes `pushtop-log-….jsonl`.
    public var saveDirectory: String
    /// The most frames drawn per second.
    public var framesPerSecond: Int
    /// Mouse clicks focus panes and the wheel scrolls.
    public var mouse: Bool
    /// Frames the wire inspector keeps.
    public var frameCapacity: Int
    /// `--record FILE`: record from the start to this file; `r` records to it too (else to a new file in
    /// ``saveDirectory``).
    public var recordPath: String?
    /// What a recording's header says: the connection and the channels asked for.
    public var recordEndpoint: String
    public var recordChannels: [String]
    /// The app's key and secret when known (the auth inspector's signature check); never shown or recorded.
    public var credentials: KnownCredentials?
    /// The app's HTTP API, when the app id and secret are known (channel browser, presence check).
    public var api: (any AppAPI)?
    /// With several nodes of one app (`--node`): the cross-node canary and roster comparison.
    public var nodes: NodeState?
    /// The debug console's rows (a `pushtop serve` feed, received webhooks); `nil` when no source is configured.
    public var console: ConsoleFeed?
    /// Where the console's `K` (close a socket on a `pushtop proxy`) is sent; `nil`: the key says it cannot.
    public var consoleControl: (any ConsoleControl)?

    public init(
        theme: String? = nil, environment: [String: String] = [:], logCapacity: Int = 10_000,
        saveDirectory: String = ".", framesPerSecond: Int = 30, mouse: Bool = true
    ) {
        self.theme = theme
        self.environment = environment
        self.logCapacity = logCapacity
        self.saveDirectory = saveDirectory
        self.framesPerSecond = framesPerSecond
        self.mouse = mouse
        self.frameCapacity = 10_000
        self.recordPath = nil
        self.recordEndpoint = ""
        self.recordChannels = []
        self.credentials = nil
        self.api = nil
    }
}
