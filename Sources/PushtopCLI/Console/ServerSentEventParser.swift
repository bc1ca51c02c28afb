/// One event of a `text/event-stream`: its `event:` name (`nil`: the default, a console row) and its `data:` lines
/// joined by newlines.
public struct ServerSentEvent: Sendable, Hashable {
    public var event: String?
    public var data: String

    public init(event: String? = nil, data: String) {
        self.event = event
        self.data = data
    }
}

/// Reads a `text/event-stream` (the HTML standard's rules) from chunks of bytes that may split anywhere, even
/// inside a line or a UTF-8 character: lines end with LF, CRLF or CR; `:` starts a comment (the feed's
/// `: keepalive`); `event:` and `data:` (one optional space after the colon) build an event; an empty line
/// dispatches it; other fields (`id:`, `retry:`) are ignored.
///
/// Memory is bounded: a line longer than ``maxLineBytes`` is dropped (counted in ``oversizedLines``), as is an
/// event whose data grows past it.
public struct ServerSentEventParser: Sendable {
    /// The longest line (and event data) kept, in bytes.
    public let maxLineBytes: Int
    /// Lines and events dropped for being longer than ``maxLineBytes``.
    public private(set) var oversizedLines = 0
    /// Comment lines seen (keepalives).
    public private(set) var comments = 0

    private var line: [UInt8] = []
    private var skippingLine = false
    private var lastWasCR = false
    private var eventName: String?
    private var data: [UInt8] = []
    private var hasData = false
    private var dataTooLong = false

    public init(maxLineBytes: Int = 1 << 20) {
        self.maxLineBytes = maxLineBytes
    }

    /// Feeds the next bytes; returns the events they complete, in order.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [ServerSentEvent] where Bytes.Element == UInt8 {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if lastWasCR {
                lastWasCR = false
                if byte == 0x0A { continue }  // CRLF: the CR ended the line
            }
            switch byte {
            case 0x0A:
                endLine(into: &events)
            case 0x0D:
                lastWasCR = true
                endLine(into: &events)
            default:
                if skippingLine { continue }
                if line.count >= maxLineBytes {
                    skippingLine = true
                    oversizedLines += 1
                    line.removeAll(keepingCapacity: false)
                } else {
                    line.append(byte)
                }
            }
        }
        return events
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer {
            line.removeAll(keepingCapacity: true)
            skippingLine = false
        }
        if skippingLine { return }
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == UInt8(ascii: ":") {
            comments += 1
            return
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let field = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var valueStart = colon.map { line.index(after: $0) } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch field {
        case "event":
            eventName = String(decoding: value, as: UTF8.self)
        case "data":
            if dataTooLong { return }
            if hasData { data.append(0x0A) }
            hasData = true
            if data.count + value.count > maxLineBytes {
                dataTooLong = true
                data.removeAll(keepingCapacity: false)
            } else {
                data.append(contentsOf: value)
            }
        default:
            break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            eventName = nil
            data.removeAll(keepingCapacity: true)
            hasData = false
            dataTooLong = false
        }
        if dataTooLong {
            oversizedLines += 1
            return
        }
        guard hasData else { return }  // the standard: an event without data is not dispatched
        events.append(
            ServerSentEvent(
                event: eventName.flatMap { $0.isEmpty ? nil : $0 }, data: String(decoding: data, as: UTF8.self)))
    }
}
