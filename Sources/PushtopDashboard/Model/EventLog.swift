import PusherProtocol

/// One line of the event log.
public struct LogEntry: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case event
        case error
        case state
        case info
        /// An event sent to the signed-in user (not to a channel); `channel` holds the user id.
        case user
    }

    /// Increases by one per entry, never reused: the entry's identity.
    public var seq: Int
    public var time: Double
    public var kind: Kind
    /// The channel, or "" for connection-level lines.
    public var channel: String
    /// The event name, or a label for state/error/info lines.
    public var event: String
    /// The data as received (events) or the message (other kinds).
    public var dataText: String?
    public var userID: String?
    /// The exact frame the event came in, when the connection has a frame tap.
    public var rawFrame: String?
    /// The app the entry belongs to (its index in ``DashboardState/apps``).
    public var app: Int

    public init(
        seq: Int, time: Double, kind: Kind, channel: String, event: String, dataText: String?,
        userID: String? = nil, rawFrame: String? = nil, app: Int = 0
    ) {
        self.app = app
        self.rawFrame = rawFrame
        self.seq = seq
        self.time = time
        self.kind = kind
        self.channel = channel
        self.event = event
        self.dataText = dataText
        self.userID = userID
    }

    /// The data on one line: compact JSON when it is JSON, else the text, with controls replaced.
    public var summary: String {
        guard let dataText else { return "" }
        let trimmed = dataText.utf8.first.map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") } ?? false
        if trimmed, let compact = JSONText.compact(dataText) {
            return DisplayWidth.sanitized(compact)  // keys in the order received
        }
        return DisplayWidth.sanitized(dataText)
    }

    /// Whether the entry matches a filter; `appLabels` names the apps (by index) for `a:LABEL`.
    public func matches(_ filter: LogFilter, appLabels: [String] = []) -> Bool {
        if let app = filter.app {
            guard appLabels.indices.contains(self.app), appLabels[self.app].containsIgnoringASCIICase(app) else {
                return false
            }
        }
        if let channel = filter.channel, !self.channel.containsIgnoringASCIICase(channel) { return false }
        if let event = filter.event, !self.event.containsIgnoringASCIICase(event) { return false }
        if let text = filter.text {
            return self.channel.containsIgnoringASCIICase(text) || self.event.containsIgnoringASCIICase(text)
                || (dataText?.containsIgnoringASCIICase(text) ?? false)
        }
        return true
    }

    /// The entry as one JSON line (for Ctrl-S).
    public var jsonLine: String { jsonLine(app: nil) }

    /// The entry as one JSON line with its app's label (several apps open).
    public func jsonLine(app: String?) -> String {
        var object: [String: JSONValue] = [
            "seq": .number(Double(seq)), "time": .number(time), "kind": .string("\(kind)"),
            "event": .string(event),
        ]
        if !channel.isEmpty { object["channel"] = .string(channel) }
        if let dataText { object["data"] = JSONValue.parsedOrString(dataText) }
        if let userID { object["user_id"] = .string(userID) }
        if let app { object["app"] = .string(app) }
        return JSONValue.object(object).jsonString
    }
}

/// A log filter typed after `/`: words are matched anywhere; `channel:NAME` (or `c:`), `event:NAME` (or `e:`)
/// and, with several apps open, `app:LABEL` (or `a:`) restrict a field. Matching ignores ASCII case.
public struct LogFilter: Sendable, Hashable {
    public var query: String
    var text: String?
    var channel: String?
    var event: String?
    var app: String?

    public init(_ query: String) {
        self.query = query
        var words: [String] = []
        for word in query.split(separator: " ") {
            let w = String(word).asciiLowercased()
            if w.hasPrefix("channel:") {
                channel = String(w.dropFirst(8))
            } else if w.hasPrefix("c:") {
                channel = String(w.dropFirst(2))
            } else if w.hasPrefix("event:") {
                event = String(w.dropFirst(6))
            } else if w.hasPrefix("e:") {
                event = String(w.dropFirst(2))
            } else if w.hasPrefix("app:") {
                app = String(w.dropFirst(4))
            } else if w.hasPrefix("a:") {
                app = String(w.dropFirst(2))
            } else {
                words.append(w)
            }
        }
        text = words.isEmpty ? nil : words.joined(separator: " ")
        if channel?.isEmpty == true { channel = nil }
        if event?.isEmpty == true { event = nil }
        if app?.isEmpty == true { app = nil }
    }

    public var isEmpty: Bool { text == nil && channel == nil && event == nil && app == nil }
}

/// The event log: a ring buffer of the newest entries (``BoundedRing``), with a count of those dropped to make
/// room, and an index of the entries matching the current filter.
public struct EventLog: Sendable {
    private var ring: BoundedRing<LogEntry>
    public private(set) var filter: LogFilter?
    /// The open apps' labels (by index), for the filter's `a:LABEL`.
    public var appLabels: [String] = []

    /// An empty log keeping at most `capacity` entries.
    public init(capacity: Int) {
        ring = BoundedRing(capacity: capacity)
    }

    /// The most entries kept.
    public var capacity: Int { ring.capacity }
    /// The seq of the oldest entry kept.
    public var firstSeq: Int { ring.firstSeq }
    /// The seq the next entry gets.
    public var nextSeq: Int { ring.nextSeq }
    /// Entries dropped from the front because the buffer was full.
    public var dropped: Int { ring.dropped }
    /// The number of entries kept.
    public var count: Int { ring.count }

    /// Appends an entry (its seq is assigned here) and returns the seq.
    @discardableResult
    public mutating func append(
        app: Int = 0, time: Double, kind: LogEntry.Kind, channel: String, event: String,
        dataText: String?, userID: String? = nil, rawFrame: String? = nil
    ) -> Int {
        let (filter, labels) = (self.filter, appLabels)
        return ring.append(
            { seq in
                LogEntry(
                    seq: seq, time: time, kind: kind, channel: channel, event: event, dataText: dataText,
                    userID: userID, rawFrame: rawFrame, app: app)
            }, isShown: { entry in filter.map { entry.matches($0, appLabels: labels) } ?? true })
    }

    /// The entry with a seq, if still kept.
    public func entry(seq: Int) -> LogEntry? { ring.element(seq: seq) }

    /// Sets (or clears, with `nil` or an empty filter) the filter and indexes the kept entries.
    public mutating func setFilter(_ newFilter: LogFilter?) {
        let f = (newFilter?.isEmpty ?? true) ? nil : newFilter
        guard f != filter else { return }
        filter = f
        let labels = appLabels
        ring.setShown(f.map { f in { $0.matches(f, appLabels: labels) } })
    }

    /// The number of visible entries (all, or the filter's matches).
    public var visibleCount: Int { ring.shownCount }

    /// The seq of the `i`th visible entry (0 = oldest).
    public func visibleSeq(at i: Int) -> Int { ring.shownSeq(at: i) }

    /// The position among visible entries of the last entry with a seq ≤ `seq`, or `nil` if none.
    public func visibleIndex(atOrBefore seq: Int) -> Int? { ring.shownIndex(atOrBefore: seq) }

    /// All kept entries, oldest first.
    public var entries: [LogEntry] { ring.elements }
}

extension String {
    func asciiLowercased() -> String {
        guard utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return self }
        return String(decoding: utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// Case-insensitive (ASCII) substring test; `needle` must already be lowercased.
    func containsIgnoringASCIICase(_ needle: String) -> Bool {
        if needle.isEmpty { return true }
        let hay = Array(utf8)
        let n = Array(needle.utf8)
        guard n.count <= hay.count else { return false }
        let first = n[0]
        var i = 0
        let last = hay.count - n.count
        while i <= last {
            var b = hay[i]
            if b >= 65 && b <= 90 { b += 32 }
            if b == first {
                var j = 1
                while j < n.count {
                    var c = hay[i + j]
                    if c >= 65 && c <= 90 { c += 32 }
                    if c != n[j] { break }
                    j += 1
                }
                if j == n.count { return true }
            }
            i += 1
        }
        return false
    }
}
