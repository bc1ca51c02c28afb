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

    /// The item's time (seconds since 1970).
    public var time: Double {
        switch self {
        case .header(let h): return h.started
        case .client(let t, _): return t
        case .frame(let f): return f.time
        case .framesDropped(let t, _): return t
        }
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

    /// A header with the given fields; `version` is ``currentVersion`` unless given.
    public init(version: Int = RecordingHeader.currentVersion, started: Double, endpoint: String, channels: [String],
                source: String) {
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
