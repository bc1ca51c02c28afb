import PusherProtocol

/// Everything the dashboard shows, as a plain value. ``reduce(_:)`` is the only way it changes; views
/// draw it; the runner performs the ``Effect``s that `reduce` returns.
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

        public init(logCapacity: Int = 10_000, utcOffset: Int = 0, themeNames: [String] = ["default"],
            keyTable: KeyTable = .standard, frameCapacity: Int = 10_000, credentials: KnownCredentials? = nil,
            hasAPI: Bool = false)
        {
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
    public internal(set) var connection = ConnectionInfo()
    public internal(set) var channels: [ChannelInfo] = []
    public internal(set) var selectedChannel = 0
    public internal(set) var rosters: [String: MemberRoster] = [:]
    /// The signed-in user's watchlist: who is watched and who of them is online.
    public internal(set) var watchlist = Watchlist()
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
    public internal(set) var themeIndex = 0
    /// A one-line message in the footer (saved file, errors), and when it was set.
    public internal(set) var status: (text: String, isError: Bool, at: Double)?
    /// Client events dropped before reaching the dashboard (its inbox was full).
    public internal(set) var droppedByUI = 0
    /// Whether something visible changed since the runner last drew (the runner clears it).
    public var needsDraw = true
    /// What fills the body: the panes or a debugger view.
    public internal(set) var view: ScreenView = .panes
    /// The wire inspector's frames and selection.
    public internal(set) var wire: WireInspectorState
    /// Whether the connection has a frame tap (frames have arrived, or the runner said so).
    public var framesAvailable = false
    /// What each subscription's authorization did, per channel (the newest attempt).
    public internal(set) var auth = AuthInspectorState()
    /// The file being recorded to, when recording.
    public internal(set) var recordingPath: String?
    /// Where a replay stands; `nil` when live.
    public internal(set) var replay: ReplayStatus?
    /// The channel browser's list and selection.
    public internal(set) var browser = ChannelBrowserState()
    /// The server's rosters of presence channels, to compare with the client's.
    public internal(set) var presenceCheck = PresenceCheckState()

    public init(size: Size, now: Double = 0, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.size = size
        self.now = now
        log = EventLog(capacity: configuration.logCapacity)
        wire = WireInspectorState(capacity: configuration.frameCapacity)
    }

    /// The endpoint text for the connection pane (set by the runner from the backend).
    public mutating func setEndpoint(_ text: String) {
        connection.endpoint = text
        needsDraw = true
    }

    /// Shows a message in the footer.
    public mutating func setStatus(_ text: String, isError: Bool = false) {
        status = (text, isError, now)
        needsDraw = true
    }

    /// The current theme's name.
    public var themeName: String {
        configuration.themeNames.isEmpty ? "default" : configuration.themeNames[themeIndex % configuration.themeNames.count]
    }

    /// The layout at the current size, `nil` when the terminal is too small.
    public var layout: Layout? { Layout(size: size) }

    /// The channel the channels pane has selected.
    public var currentChannel: ChannelInfo? {
        channels.indices.contains(selectedChannel) ? channels[selectedChannel] : nil
    }

    /// The presence channel whose roster the members pane shows: the selected channel if it is a presence
    /// channel, else the first presence channel.
    public var memberChannel: String? {
        if let c = currentChannel, c.kind == .presence, rosters[c.name] != nil { return c.name }
        return channels.first { $0.kind == .presence && rosters[$0.name] != nil }?.name
    }

    /// Changes the state. Returns what the outside world must do.
    public mutating func reduce(_ event: UIEvent) -> [Effect] {
        switch event {
        case .client(let batch):
            for e in batch { apply(e) }
            if !batch.isEmpty {
                connection.lastFrameAt = now
                needsDraw = true
            }
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
            return apiRequestsDue()
        case .dropped(let n):
            droppedByUI += n
            needsDraw = true
            return []
        case .notice(let text, let isError):
            setStatus(text, isError: isError)
            return []
        case .frames(let frames, let droppedUpstream):
            framesAvailable = true
            wire.append(frames)
            wire.log.droppedUpstream = max(wire.log.droppedUpstream, droppedUpstream)
            if view == .wireInspector, !frames.isEmpty || droppedUpstream > 0 { needsDraw = true }
            return []
        case .recording(let path):
            recordingPath = path
            needsDraw = true
            return []
        case .replay(let status):
            if status != replay { needsDraw = true }
            replay = status
            return []
        case .occupiedChannels(let list, let error):
            browser.received(list, error: error, at: now)
            if view == .channelBrowser { needsDraw = true }
            return []
        case .presenceUsers(let channel, let userIDs, let error):
            presenceCheck.received(channel, userIDs: userIDs, error: error, at: now)
            needsDraw = true
            return []
        }
    }

    mutating func tick(_ t: Double) {
        let previous = now
        now = t
        if Int(t) != Int(previous) {
            needsDraw = true  // clocks, countdowns and sparklines move once a second
            connection.rate.advance(to: t)
            for i in channels.indices { channels[i].rate.advance(to: t) }
        }
        for name in Array(rosters.keys) {
            if rosters[name]!.expire(at: t) { needsDraw = true }
        }
        if let s = status, t - s.at > 6 {
            status = nil
            needsDraw = true
        }
    }

    /// HTTP API requests due now: the open channel browser's list, the shown presence channel's roster.
    mutating func apiRequestsDue() -> [Effect] {
        guard configuration.hasAPI, replay == nil else { return [] }
        var effects: [Effect] = []
        if view == .channelBrowser, browser.due(at: now) {
            browser.started(at: now)
            effects.append(.fetchOccupiedChannels)
        }
        if view == .panes, let channel = memberChannel, presenceCheck.due(channel, at: now) {
            presenceCheck.started(channel, at: now)
            effects.append(.fetchPresenceUsers(channel))
        }
        return effects
    }

    mutating func clampSelections() {
        selectedChannel = max(0, min(selectedChannel, channels.count - 1))
    }
}
