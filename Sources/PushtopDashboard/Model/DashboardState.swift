import PusherProtocol

/// Everything the dashboard shows, as a plain value. ``reduce(_:)`` is the only way it changes; views
/// draw it; the runner performs the ``Effect``s that `reduce` returns.
@dynamicMemberLookup
public struct DashboardState: Sendable {
    /// Options that do not change while running.
    public struct Configuration: Sendable {
        /// Entries kept in the log before the oldest are dropped.
        public var logCapacity: Int
        /// Local time minus UTC, in seconds (for the log's clock).
        public var utcOffset: Int
        /// Names of the themes `T` cycles through, and the current one.
        public var themeNames: [String]
        public var keyTable: KeyTable
        /// Frames the wire inspector keeps before the oldest are dropped.
        public var frameCapacity: Int
        /// The app's key and secret when known: the auth inspector recomputes signatures with them. Never
        /// drawn, logged or recorded.
        public var credentials: KnownCredentials?
        /// Whether the app's HTTP API is reachable (app id and secret known): the channel browser and the
        /// presence check use it.
        public var hasAPI: Bool
        /// Rows the debug console keeps before the oldest are dropped.
        public var consoleCapacity: Int

        public init(
            logCapacity: Int = 10_000, utcOffset: Int = 0, themeNames: [String] = ["default"],
            keyTable: KeyTable = .standard, frameCapacity: Int = 10_000, credentials: KnownCredentials? = nil,
            hasAPI: Bool = false, consoleCapacity: Int = 50_000
        ) {
            self.consoleCapacity = consoleCapacity
            self.hasAPI = hasAPI
            self.logCapacity = logCapacity
            self.utcOffset = utcOffset
            self.themeNames = themeNames
            self.keyTable = keyTable
            self.frameCapacity = frameCapacity
            self.credentials = credentials
        }
    }

    public let configuration: Configuration
    public internal(set) var size: Size
    public internal(set) var now: Double
    /// The open apps (one per profile; one when a single app is open). Channels and log entries name theirs.
    public internal(set) var apps: [AppState]
    /// The app that keys act on (subscribe, sign in, the debugger views): the selected channel's app.
    public internal(set) var selectedApp = 0
    /// Every app's channels, grouped by app (in app order).
    public internal(set) var channels: [ChannelInfo] = []
    public internal(set) var selectedChannel = 0
    /// The first member row shown.
    public internal(set) var memberTop = 0
    public internal(set) var log: EventLog
    /// The selected log entry's seq; `nil` while following the newest.
    public internal(set) var logSelected: Int?
    /// The seq of the first log row shown when not following.
    public internal(set) var logTop = 0
    /// Whether the log view is paused, and the next seq at the moment it was paused.
    public internal(set) var pausedAt: Int?
    public internal(set) var focus: Pane = .log
    public internal(set) var prompt: Prompt?
    public internal(set) var overlay: Overlay = .none
    /// The first line the help overlay shows (it scrolls when the terminal is short).
    public internal(set) var helpScroll = 0
    public internal(set) var themeIndex = 0
    /// A one-line message in the footer (saved file, errors), and when it was set.
    public internal(set) var status: (text: String, isError: Bool, at: Double)?
    /// Client events dropped before reaching the dashboard (its inbox was full).
    public internal(set) var droppedByUI = 0
    /// Whether something visible changed since the runner last drew (the runner clears it).
    public var needsDraw = true
    /// What fills the body: the panes or a debugger view.
    public internal(set) var view: ScreenView = .panes
    /// The file being recorded to, when recording.
    public internal(set) var recordingPath: String?
    /// Where a replay stands; `nil` when live.
    public internal(set) var replay: ReplayStatus?
    /// Several nodes of one app (each an app here): the cross-node canary and roster comparison.
    public internal(set) var nodes: NodeState?
    /// The debug console (one for the dashboard: its sources watch the app from the server's side).
    public internal(set) var console: ConsoleState

    public init(size: Size, now: Double = 0, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.size = size
        self.now = now
        log = EventLog(capacity: configuration.logCapacity)
        console = ConsoleState(capacity: configuration.consoleCapacity)
        apps = [
            AppState(
                setup: AppSetup(label: "", credentials: configuration.credentials, hasAPI: configuration.hasAPI),
                frameCapacity: configuration.frameCapacity)
        ]
    }

    /// The endpoint text for the connection pane (set by the runner from the backend).
    public mutating func setEndpoint(_ text: String) {
        self.connection.endpoint = text
        needsDraw = true
    }

    /// Opens these apps (one per profile) in place of the single unnamed one; call before anything arrives.
    public mutating func setApps(_ setups: [AppSetup]) {
        guard !setups.isEmpty else { return }
        apps = setups.map { AppState(setup: $0, frameCapacity: configuration.frameCapacity) }
        log.appLabels = apps.map(\.label)
        selectedApp = 0
        needsDraw = true
    }

    /// Whether several apps are open (the panes then group and mark by app).
    public var isMultiApp: Bool { apps.count > 1 }

    /// ` · LABEL` for the debugger views' titles when several apps are open, else empty.
    public var appTitleSuffix: String { isMultiApp ? " · \(appLabel)" : "" }

    /// The selected app's label (empty with a single app).
    public var appLabel: String { apps[selectedApp].label }

    /// The selected app's parts, read as if they were the state's own: `state.rosters`, `state.wire`,
    /// `state.connection`, `state.credentials` … are those of `apps[selectedApp]` (see ``AppState``). One
    /// accessor for every part, so a new part of an app needs no forwarding property here.
    public subscript<Part>(dynamicMember part: KeyPath<AppState, Part>) -> Part {
        apps[selectedApp][keyPath: part]
    }

    /// The selected app's parts, for `reduce` to change in place.
    subscript<Part>(dynamicMember part: WritableKeyPath<AppState, Part>) -> Part {
        get { apps[selectedApp][keyPath: part] }
        _modify { yield &apps[selectedApp][keyPath: part] }
    }

    /// The names of the selected app's channels.
    var appChannelNames: [String] { channels.filter { $0.app == selectedApp }.map(\.name) }

    /// Shows a message in the footer.
    public mutating func setStatus(_ text: String, isError: Bool = false) {
        status = (text, isError, now)
        needsDraw = true
    }

    /// The current theme's name.
    public var themeName: String {
        configuration.themeNames.isEmpty
            ? "default" : configuration.themeNames[themeIndex % configuration.themeNames.count]
    }

    /// The layout at the current size, `nil` when the terminal is too small.
    public var layout: Layout? { Layout(size: size) }

    /// The channel the channels pane has selected (always one of the selected app's).
    public var currentChannel: ChannelInfo? {
        channels.indices.contains(selectedChannel) && channels[selectedChannel].app == selectedApp
            ? channels[selectedChannel] : nil
    }

    /// The presence channel whose roster the members pane shows: the selected channel if it is a presence
    /// channel, else the selected app's first presence channel.
    public var memberChannel: String? {
        if let c = currentChannel, c.kind == .presence, self.rosters[c.name] != nil { return c.name }
        return channels.first { $0.app == selectedApp && $0.kind == .presence && self.rosters[$0.name] != nil }?.name
    }

    /// Changes the state. Returns what the outside world must do.
    public mutating func reduce(_ event: UIEvent) -> [Effect] {
        switch event {
        case .client(let batch, let app):
            applyClient(batch, app: app)
            return []
        case .key(let key):
            needsDraw = true
            return handle(key)
        case .paste(let text):
            guard prompt != nil else { return [] }
            needsDraw = true
            for ch in text where ch != "\n" && ch != "\r" { insertIntoPrompt(ch) }
            return []
        case .mouse(let action):
            needsDraw = true
            return handle(action)
        case .resize(let newSize):
            size = newSize
            clampSelections()
            needsDraw = true
            return []
        case .tick(let t):
            tick(t)
            return apiRequestsDue() + nodeTick()
        case .nodes(let answer):
            return nodeAnswer(answer)
        case .console(let update):
            console.apply(update)
            if view == .console { needsDraw = true }
            return []
        case .dropped(let n):
            droppedByUI += n
            needsDraw = true
            return []
        case .notice(let text, let isError):
            setStatus(text, isError: isError)
            return []
        case .frames(let frames, let droppedUpstream, let app):
            receiveFrames(frames, droppedUpstream: droppedUpstream, app: app)
            return []
        case .recording(let path):
            recordingPath = path
            needsDraw = true
            return []
        case .replay(let status):
            if status != replay { needsDraw = true }
            replay = status
            return []
        case .occupiedChannels(let list, let error, let app):
            receiveOccupiedChannels(list, error: error, app: app)
            return []
        case .presenceUsers(let channel, let userIDs, let error, let app):
            receivePresenceUsers(channel, userIDs: userIDs, error: error, app: app)
            return []
        }
    }

    /// A burst of an app's client events, applied to its slice of the state.
    private mutating func applyClient(_ batch: [ClientEvent], app: Int) {
        guard apps.indices.contains(app) else { return }
        var batch = batch
        if nodes != nil { batch = takeNodeEvents(batch, app: app) }
        inApp(app) { state in
            for e in batch { state.apply(e) }
            if !batch.isEmpty {
                state.connection.lastFrameAt = state.now
                state.needsDraw = true
            }
        }
        if isMultiApp, currentChannel == nil, let i = channels.firstIndex(where: { $0.app == selectedApp }) {
            selectedChannel = i  // another app's channel arrived above the selection
        }
    }

    /// An app's wire frames, for the wire inspector; `droppedUpstream` counts those its feed could not keep.
    private mutating func receiveFrames(_ frames: [WireFrame], droppedUpstream: Int, app: Int) {
        guard apps.indices.contains(app) else { return }
        apps[app].framesAvailable = true
        apps[app].wire.append(frames)
        apps[app].wire.log.droppedUpstream = max(apps[app].wire.log.droppedUpstream, droppedUpstream)
        if view == .wireInspector, app == selectedApp, !frames.isEmpty || droppedUpstream > 0 { needsDraw = true }
    }

    /// The HTTP API's answer for the channel browser.
    private mutating func receiveOccupiedChannels(_ list: [OccupiedChannel]?, error: String?, app: Int) {
        guard apps.indices.contains(app) else { return }
        apps[app].browser.received(list, error: error, at: now)
        if view == .channelBrowser, app == selectedApp { needsDraw = true }
    }

    /// The HTTP API's answer for the presence check, compared with the members the client holds now.
    private mutating func receivePresenceUsers(_ channel: String, userIDs: [String]?, error: String?, app: Int) {
        guard apps.indices.contains(app) else { return }
        let client = apps[app].rosters[channel].map { roster in
            Set(roster.rows.filter { $0.leftAt == nil }.map(\.member.userID))
        }
        apps[app].presenceCheck.received(channel, userIDs: userIDs, error: error, clientUserIDs: client, at: now)
        needsDraw = true
    }

    mutating func tick(_ t: Double) {
        let previous = now
        now = t
        if Int(t) != Int(previous) {
            needsDraw = true  // clocks, countdowns and sparklines move once a second
            for a in apps.indices { apps[a].connection.rate.advance(to: t) }
            for i in channels.indices { channels[i].rate.advance(to: t) }
        }
        for a in apps.indices {
            for name in Array(apps[a].rosters.keys) {
                if apps[a].rosters[name]!.expire(at: t) { needsDraw = true }
            }
        }
        if let s = status, t - s.at > 6 {
            status = nil
            needsDraw = true
        }
    }

    /// HTTP API requests due now: the open channel browser's list, the shown presence channel's roster.
    mutating func apiRequestsDue() -> [Effect] {
        guard self.hasAPI, replay == nil else { return [] }
        var effects: [Effect] = []
        if view == .channelBrowser, self.browser.due(at: now) {
            self.browser.started(at: now)
            effects.append(.fetchOccupiedChannels)
        }
        if view == .panes, let channel = memberChannel, self.presenceCheck.due(channel, at: now) {
            self.presenceCheck.started(channel, at: now)
            effects.append(.fetchPresenceUsers(channel))
        }
        return effects
    }

    mutating func clampSelections() {
        selectedChannel = max(0, min(selectedChannel, channels.count - 1))
    }

    /// Runs `body` with `app` as the selected app (client events, frames and answers change their own app's
    /// slice), then selects the user's app again.
    mutating func inApp(_ app: Int, _ body: (inout DashboardState) -> Void) {
        let saved = selectedApp
        selectedApp = app
        body(&self)
        selectedApp = saved
    }
}
