/// One line of a recording (`pushtop --record`, `watch --record`): what the consumer received, with its time.
///
/// A recording is JSON lines: a header first, then client events, frames and drop counts in the order they
/// arrived. ``RecordingCodec`` writes and reads them; replaying drives the same code with the same values.
public enum RecordingItem: Sendable, Hashable {
    /// The first line: format version, when, where and which channels were asked for.
    case header(RecordingHeader)
    /// A client event, and when the consumer received it.
    case client(time: Double, event: ClientEvent)
    /// A WebSocket frame (its own time stamp).
    case frame(WireFrame)
    /// The frame tap had dropped this many frames in all by `time`.
    case framesDropped(time: Double, total: Int)
    /// An answer of the app's HTTP API that the consumer showed: `query` is `channels` (the occupied
    /// channels) or `users/CHANNEL` (a presence channel's users); `result` is the answer as the consumer
    /// keeps it, `error` why it failed.
    case apiAnswer(time: Double, query: String, result: JSONValue?, error: String?)
    /// A debug-console row (`pushtop console --record`, the dashboard's console), and when pushtop received it
    /// (the row's own ``ConsoleRow/timeMs`` is when the server did it). Its line is
    /// `{"type":"console","t":…,"row":{…the row's JSON line…}}`.
    case console(time: Double, row: ConsoleRow)
    /// An item of another app than the first, when several were recorded: the app's index in the header's
    /// ``RecordingHeader/apps`` (its line carries `"app": N`).
    indirect case inApp(Int, RecordingItem)

    /// `item` as app `app`'s (unchanged for the first app).
    public static func tagged(_ item: RecordingItem, app: Int) -> RecordingItem {
        app == 0 ? item : .inApp(app, item)
    }

    /// The item's time (seconds since 1970).
    public var time: Double {
        switch self {
        case .header(let h): return h.started
        case .client(let t, _): return t
        case .frame(let f): return f.time
        case .framesDropped(let t, _): return t
        case .apiAnswer(let t, _, _, _): return t
        case .console(let t, _): return t
        case .inApp(_, let item): return item.time
        }
    }

    /// The index of the app the item belongs to (0 for the first app and with one app).
    public var app: Int {
        if case .inApp(let app, _) = self { return app }
        return 0
    }
}

/// A recording's first line.
public struct RecordingHeader: Sendable, Hashable {
    /// The format version this code writes.
    public static let currentVersion = 1

    /// The format version the recording was written in.
    public var version: Int
    /// Seconds since 1970 when recording started.
    public var started: Double
    /// Host, port and TLS of the connection.
    public var endpoint: String
    /// The channels asked for on the command line.
    public var channels: [String]
    /// What wrote it: `pushtop dashboard`, `pushtop watch`.
    public var source: String
    /// The apps recorded when there were several (their lines carry an `app` index into this list); empty
    /// with one app.
    public var apps: [App] = []

    /// One of several recorded apps: its label (profile name) and endpoint.
    public struct App: Sendable, Hashable {
        /// The app's label (its profile's name).
        public var label: String
        /// Host, port and TLS of its connection.
        public var endpoint: String

        /// A recorded app.
        public init(label: String, endpoint: String) {
            self.label = label
            self.endpoint = endpoint
        }
    }

    /// A header with the given fields; `version` is ``currentVersion`` unless given.
    public init(
        version: Int = RecordingHeader.currentVersion, started: Double, endpoint: String, channels: [String],
        source: String
    ) {
        self.version = version
        self.started = started
        self.endpoint = endpoint
        self.channels = channels
        self.source = source
    }
}

/// Why a recording could not be read to its end: the line and the problem. Replay shows everything before it.
public struct RecordingDamage: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// What is wrong with that line.
    public var reason: String

    /// Damage at `line` (1-based) for `reason`.
    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "line \(line): \(reason)" }
}
