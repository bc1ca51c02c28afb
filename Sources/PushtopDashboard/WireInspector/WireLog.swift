import PusherProtocol

/// One kept frame of the wire inspector: the frame and its identity.
public struct WireEntry: Sendable, Hashable {
    /// Increases by one per frame, never reused.
    public var seq: Int
    public var frame: WireFrame

    /// Whether the frame is a keep-alive: a WebSocket ping/pong, or Pusher's `pusher:ping`/`pusher:pong`.
    public var isKeepAlive: Bool {
        switch frame.kind {
        case .ping, .pong: return true
        case .text:
            return WireEntry.eventName(in: frame.text).map { $0 == "pusher:ping" || $0 == "pusher:pong" } ?? false
        case .binary, .close: return false
        }
    }

    /// The value of the top-level string field `"name":"…"` of a frame's JSON text, found by scanning (no parse).
    static func field(_ name: String, in text: String) -> String? {
        let needle = Array("\"\(name)\":\"".utf8)
        let bytes = Array(text.utf8.prefix(4096))
        guard bytes.count >= needle.count else { return nil }
        var i = 0
        while i <= bytes.count - needle.count {
            if bytes[i] == needle[0], Array(bytes[i..<(i + needle.count)]) == needle {
                var j = i + needle.count
                var out: [UInt8] = []
                while j < bytes.count, bytes[j] != UInt8(ascii: "\"") {
                    if bytes[j] == UInt8(ascii: "\\"), j + 1 < bytes.count { j += 1 }
                    out.append(bytes[j])
                    j += 1
                }
                return String(decoding: out, as: UTF8.self)
            }
            i += 1
        }
        return nil
    }

    static func eventName(in text: String) -> String? { field("event", in: text) }

    /// The Pusher event name of a text frame, if it has one.
    public var eventName: String? { frame.kind == .text ? WireEntry.eventName(in: frame.text) : nil }
    /// The channel of a text frame, if it names one.
    public var channel: String? { frame.kind == .text ? WireEntry.field("channel", in: frame.text) : nil }

    /// Whether the frame matches a filter (`c:` the channel, `e:` the event, words anywhere in the text).
    public func matches(_ filter: LogFilter) -> Bool {
        if let c = filter.channel, !(channel ?? "").containsIgnoringASCIICase(c) { return false }
        if let e = filter.event, !(eventName ?? "").containsIgnoringASCIICase(e) { return false }
        if let text = filter.text { return frame.text.containsIgnoringASCIICase(text) }
        return true
    }
}

/// The wire inspector's frames: a ring buffer of the newest (``BoundedRing``), a count of those dropped (here,
/// or before they reached the dashboard), and an index of the frames shown under the current filter and
/// keep-alive setting.
public struct WireLog: Sendable {
    private var ring: BoundedRing<WireEntry>
    /// Frames dropped by the client's frame tap before they reached the dashboard.
    public var droppedUpstream = 0
    public private(set) var filter: LogFilter?
    /// Whether pings and pongs are shown.
    public private(set) var showsKeepAlives = true

    /// An empty inspector log keeping at most `capacity` frames.
    public init(capacity: Int) {
        ring = BoundedRing(capacity: capacity)
    }

    /// The most frames kept.
    public var capacity: Int { ring.capacity }
    /// The seq of the oldest frame kept.
    public var firstSeq: Int { ring.firstSeq }
    /// The seq the next frame gets.
    public var nextSeq: Int { ring.nextSeq }
    /// Frames dropped: pushed out of the ring, plus those lost upstream.
    public var dropped: Int { ring.dropped + droppedUpstream }
    /// Frames kept.
    public var count: Int { ring.count }

    private static func shows(_ entry: WireEntry, filter: LogFilter?, keepAlives: Bool) -> Bool {
        if !keepAlives, entry.isKeepAlive { return false }
        if let filter { return entry.matches(filter) }
        return true
    }

    /// Appends a frame.
    public mutating func append(_ frame: WireFrame) {
        let (filter, keepAlives) = (self.filter, showsKeepAlives)
        ring.append(
            { WireEntry(seq: $0, frame: frame) },
            isShown: { WireLog.shows($0, filter: filter, keepAlives: keepAlives) })
    }

    /// The frame with a seq, if still kept.
    public func entry(seq: Int) -> WireEntry? { ring.element(seq: seq) }

    /// Sets or clears (`nil`, or an empty filter) the filter.
    public mutating func setFilter(_ newFilter: LogFilter?) {
        let f = (newFilter?.isEmpty ?? true) ? nil : newFilter
        guard f != filter else { return }
        filter = f
        reindex()
    }

    /// Shows or hides pings and pongs.
    public mutating func setShowsKeepAlives(_ on: Bool) {
        guard on != showsKeepAlives else { return }
        showsKeepAlives = on
        reindex()
    }

    private mutating func reindex() {
        let (filter, keepAlives) = (self.filter, showsKeepAlives)
        ring.setShown(filter == nil && keepAlives ? nil : { WireLog.shows($0, filter: filter, keepAlives: keepAlives) })
    }

    /// Frames shown.
    public var visibleCount: Int { ring.shownCount }

    /// The seq of the `i`th shown frame (0 = oldest).
    public func visibleSeq(at i: Int) -> Int { ring.shownSeq(at: i) }

    /// The position among shown frames of the last one with a seq ≤ `seq`, or `nil`.
    public func visibleIndex(atOrBefore seq: Int) -> Int? { ring.shownIndex(atOrBefore: seq) }
}
