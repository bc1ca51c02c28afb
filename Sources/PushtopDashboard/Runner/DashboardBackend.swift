import PusherProtocol

/// What the dashboard asks of the client. The executable adapts the real client to it; tests and the
/// preview use ``ScriptedBackend``.
///
/// Results come back through the event stream as ``ClientEvent``s (`.subscribed`, `.subscriptionError`,
/// `.unsubscribed`, `.error(code: nil, …)`, state changes); a thrown error is shown in the log as well.
public protocol DashboardBackend: Sendable {
    /// Host, port and TLS, for the connection pane (e.g. `ws-eu.pusher.com:443 TLS`).
    var connectionDescription: String { get }
    func subscribe(_ channel: String) async throws
    func unsubscribe(_ channel: String) async
    /// Sends a client event (`client-…`) on a private or presence channel.
    func trigger(channel: String, event: String, data: JSONValue) async throws
    func connect() async
    func disconnect() async
    /// Signs the user in (results come back as `.signedIn` / `.signInFailed`).
    func signIn() async throws
    /// Stops being signed in.
    func signOut() async
}

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
    /// Client events held between two loop turns before new ones are dropped (and counted).
    public var inboxCapacity: Int
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

    public init(theme: String? = nil, environment: [String: String] = [:], logCapacity: Int = 10_000,
        saveDirectory: String = ".", framesPerSecond: Int = 30, mouse: Bool = true, inboxCapacity: Int = 200_000)
    {
        self.theme = theme
        self.environment = environment
        self.logCapacity = logCapacity
        self.saveDirectory = saveDirectory
        self.framesPerSecond = framesPerSecond
        self.mouse = mouse
        self.inboxCapacity = inboxCapacity
        self.frameCapacity = 10_000
        self.recordPath = nil
        self.recordEndpoint = ""
        self.recordChannels = []
        self.credentials = nil
        self.api = nil
    }
}

/// One app for ``runDashboard(apps:options:)``: its connection's events, frames and commands, its HTTP API,
/// and what the dashboard shows of it.
public struct DashboardApp: Sendable {
    /// The app's label (its profile's name), endpoint and credentials.
    public var setup: AppSetup
    /// The client's events, in batches.
    public var events: AsyncStream<[ClientEvent]>
    /// The client's frame tap (the wire inspector), when it has one.
    public var frames: AsyncStream<FrameBatch>?
    /// Where this app's subscribe/unsubscribe/trigger/connect/disconnect go.
    public var backend: any DashboardBackend
    /// The app's HTTP API (channel browser, presence check), when its app id and secret are known.
    public var api: (any AppAPI)?
    /// The channels asked for (a recording's header names them).
    public var channels: [String]

    /// An app to run the dashboard on.
    public init(setup: AppSetup, events: AsyncStream<[ClientEvent]>, frames: AsyncStream<FrameBatch>? = nil,
        backend: any DashboardBackend, api: (any AppAPI)? = nil, channels: [String] = [])
    {
        self.setup = setup
        self.events = events
        self.frames = frames
        self.backend = backend
        self.api = api
        self.channels = channels
    }
}

/// A batch from the client's frame tap: the frames, and how many the tap has dropped so far in all.
public struct FrameBatch: Sendable {
    public var frames: [WireFrame]
    public var droppedSoFar: Int

    public init(frames: [WireFrame], droppedSoFar: Int) {
        self.frames = frames
        self.droppedSoFar = droppedSoFar
    }
}

/// Why the dashboard stopped.
public enum DashboardExit: Sendable, Hashable {
    /// `q` or Ctrl-C.
    case quit
    /// SIGINT or SIGTERM from outside.
    case signal(Int32)

    /// The conventional process exit status: 0, or 128 + the signal.
    public var exitStatus: Int32 {
        switch self {
        case .quit: return 0
        case .signal(let s): return 128 + s
        }
    }
}
