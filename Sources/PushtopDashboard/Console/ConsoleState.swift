import PusherProtocol

/// What a key does in the console.
public enum ConsoleAction: Sendable, Hashable {
    case up, down, pageUp, pageDown, top, bottom
    /// Enter: open the selected row's whole JSON (or close it).
    case open
    /// `/`: filter over channel, event, socket, user and data.
    case filter
    /// `p`: pause (rows still arrive and are counted as "N new") or resume.
    case pause
    /// A number key: show or hide one group of row types.
    case toggle(ConsoleTypeGroup)
    /// `0`: show every type.
    case showAll
    /// `f`: follow the selected row's socket (every row of it, its lifetime), or stop following.
    case follow
    /// `F`: show or hide "frequently seen".
    case frequent
    /// `o`: open the selected row's channel in the channel browser.
    case browse
    /// `s`: subscribe to the selected row's channel.
    case subscribe
    /// `K`: have the `pushtop proxy` behind the feed close the selected row's socket with 4200 ("reconnect now").
    case kick
    /// Esc: close the row, else stop following, else clear the filter, else leave.
    case close
}

/// The debug console's slice of the dashboard state: a bounded ring of rows (the newest ``capacity``), the type
/// toggles, the filter, the followed socket, pause, the selection and the open row, and what is computed from
/// every row as it arrives (counts, "frequently seen", the sources' states).
public struct ConsoleState: Sendable {
    /// What the dashboard must do after a console action.
    public enum Outcome: Sendable, Hashable {
        case none
        /// Open the filter prompt.
        case promptFilter
        /// Leave the console.
        case leave
        /// Open the channel browser on this channel.
        case browse(String)
        /// Subscribe to this channel.
        case subscribe(String)
        /// Say this in the footer.
        case status(String)
        /// Ask the proxy behind the feed for this fault.
        case fault(ConsoleFaultRequest)
    }

    /// The close code `K` asks for: Pusher's 4200, "reconnect immediately".
    public static let kickCode = 4200

    /// The rows kept (the newest), each with a seq that is never reused.
    public private(set) var log: BoundedRing<ConsoleRow>
    /// Type groups hidden.
    public private(set) var hidden: Set<ConsoleTypeGroup> = []
    /// The filter's text (empty: none).
    public private(set) var filter = ""
    /// The followed socket and its lifetime.
    public private(set) var followed: ConsoleSocketLife?
    /// The selected row's seq; `nil` while following the newest.
    public internal(set) var selected: Int?
    /// The first shown seq while not following.
    public internal(set) var top = 0
    /// The next seq when the console was paused: rows from it on are "new" and not shown yet.
    public private(set) var pausedAt: Int?
    /// The row open in the detail view, and its scroll.
    public internal(set) var detail: (seq: Int, scroll: Int)?
    /// Whether "frequently seen" is shown.
    public private(set) var showsFrequent = false
    public private(set) var frequency = ConsoleFrequency()
    public private(set) var counts = ConsoleCounts()
    /// Every source's latest state.
    public private(set) var sources: [ConsoleSourceStatus] = []
    /// Rows dropped before they reached the console (the feed's buffer was full).
    public private(set) var droppedUpstream = 0
    /// Rows received in all (kept or not).
    public private(set) var received = 0
    /// The newest row's time.
    public private(set) var lastRowMs: Int64?

    /// An empty console keeping at most `capacity` rows.
    public init(capacity: Int) {
        log = BoundedRing(capacity: capacity)
    }

    /// The most rows kept.
    public var capacity: Int { log.capacity }
    /// Whether the list follows the newest row.
    public var isFollowing: Bool { selected == nil }
    public var isPaused: Bool { pausedAt != nil }

    /// Rows shown now (under the toggles, the filter, the followed socket, and before the pause).
    public var visibleCount: Int {
        guard let pausedAt else { return log.shownCount }
        return (log.shownIndex(atOrBefore: pausedAt - 1) ?? -1) + 1
    }

    /// Rows that match but arrived since the pause.
    public var newWhilePaused: Int { log.shownCount - visibleCount }

    /// Rows dropped in all: pushed out of the ring, or lost before reaching it.
    public var dropped: Int { log.dropped + droppedUpstream }

    /// Applies what the sources posted: sources' states, snapshots, then rows in order.
    mutating func apply(_ update: ConsoleUpdate) {
        if let sources = update.sources { self.sources = sources }
        for s in update.snapshots { counts.apply(s) }
        if update.dropped > 0 {
            droppedUpstream += update.dropped
            counts.lost()
        }
        let (hidden, needle, socket) = (self.hidden, filter.asciiLowercased(), followed?.socketID)
        for row in update.rows {
            counts.apply(row)
            frequency.add(row)
            followed?.apply(row)
            log.append(
                { _ in row }, isShown: { ConsoleState.shows($0, hidden: hidden, filter: needle, socket: socket) })
        }
        received += update.rows.count
        if let last = update.rows.last { lastRowMs = max(lastRowMs ?? last.timeMs, last.timeMs) }
    }

    /// Whether a row passes the toggles, the filter and the followed socket.
    static func shows(_ row: ConsoleRow, hidden: Set<ConsoleTypeGroup>, filter: String, socket: String?) -> Bool {
        if let socket, row.socketID != socket { return false }
        if !hidden.isEmpty, let group = ConsoleTypeGroup.of(row.type), hidden.contains(group) { return false }
        guard !filter.isEmpty else { return true }
        return ConsoleState.matches(row, filter)
    }

    /// Whether the filter's text (`needle`, lowercased) appears, ignoring ASCII case, in the row's channel(s), event,
    /// socket, user or data.
    static func matches(_ row: ConsoleRow, _ needle: String) -> Bool {
        for field in [row.channel, row.event, row.socketID, row.userID, row.data] {
            if let field, field.containsIgnoringASCIICase(needle) { return true }
        }
        return row.channels?.contains { $0.containsIgnoringASCIICase(needle) } ?? false
    }

    private mutating func reindex() {
        let (hidden, needle, socket) = (self.hidden, filter.asciiLowercased(), followed?.socketID)
        log.setShown(
            hidden.isEmpty && needle.isEmpty && socket == nil
                ? nil : { ConsoleState.shows($0, hidden: hidden, filter: needle, socket: socket) })
        selected = nil
    }

    /// Sets the filter (empty clears it).
    mutating func setFilter(_ text: String) {
        guard text != filter else { return }
        filter = text
        reindex()
    }

    /// Follows a socket (every row of it), or stops (`nil`).
    mutating func follow(_ socketID: String?) {
        guard socketID != followed?.socketID else { return }
        if let socketID {
            var life = ConsoleSocketLife(socketID: socketID)
            for seq in log.firstSeq..<log.nextSeq {
                if let row = log.element(seq: seq), row.socketID == socketID { life.apply(row) }
            }
            followed = life
        } else {
            followed = nil
        }
        reindex()
    }

    /// The selected row (the newest shown one while following).
    public var selectedRow: (seq: Int, row: ConsoleRow)? {
        guard let seq = selected ?? newestSeq, let row = log.element(seq: seq) else { return nil }
        return (seq, row)
    }

    var newestSeq: Int? {
        let count = visibleCount
        return count > 0 ? log.shownSeq(at: count - 1) : nil
    }

    /// Performs a console action; `rows` is the number of list rows shown.
    mutating func perform(_ action: ConsoleAction, rows: Int) -> Outcome {
        if let d = detail {
            if let scroll = Scrolling.detail(d.scroll, after: action, page: rows - 2) {
                detail?.scroll = scroll
                return .none
            }
            switch action {
            case .open, .close:
                detail = nil
                return .none
            default: return performOnRow(action)
            }
        }
        if moveSelection(action, rows: rows) { return .none }
        switch action {
        case .up, .down, .pageUp, .pageDown, .top, .bottom: break  // moved the selection above
        case .open:
            if let seq = selectedRow?.seq { detail = (seq, 0) }
        case .filter:
            return .promptFilter
        case .pause:
            pausedAt = pausedAt == nil ? log.nextSeq : nil
        case .toggle(let group):
            if hidden.contains(group) { hidden.remove(group) } else { hidden.insert(group) }
            reindex()
        case .showAll:
            hidden = []
            reindex()
        case .frequent:
            showsFrequent.toggle()
        case .follow, .browse, .subscribe, .kick:
            return performOnRow(action)
        case .close:
            if followed != nil {
                follow(nil)
            } else if !filter.isEmpty {
                setFilter("")
            } else {
                return .leave
            }
        }
        return .none
    }

    /// The actions on the selected row (or the open one).
    private mutating func performOnRow(_ action: ConsoleAction) -> Outcome {
        let row = detail.flatMap { log.element(seq: $0.seq) } ?? selectedRow?.row
        switch action {
        case .follow:
            if followed != nil {
                follow(nil)
                return .status("stopped following the socket")
            }
            guard let socket = row?.socketID else { return .status("this row names no socket") }
            detail = nil
            follow(socket)
            return .none
        case .browse, .subscribe:
            guard let channel = row?.channel ?? row?.channels?.first else {
                return .status("this row names no channel")
            }
            return action == .browse ? .browse(channel) : .subscribe(channel)
        case .kick:
            guard let row, let socket = row.socketID else { return .status("this row names no socket") }
            if row.type == .disconnection { return .status("socket \(socket) is already closed") }
            return .fault(ConsoleFaultRequest(socketID: socket, code: Self.kickCode, node: row.node))
        default:
            return .none
        }
    }

    /// Moves the selection for a move key; `false` when `action` is not one.
    private mutating func moveSelection(_ action: ConsoleAction, rows: Int) -> Bool {
        let (log, count) = (self.log, visibleCount)  // read before `selected` and `top` are lent out
        return FollowingScroll.perform(
            action, selected: &selected, top: &top, rows: rows, count: count, seq: { log.shownSeq(at: $0) },
            index: { log.shownIndex(atOrBefore: $0) })
    }

    /// The seqs of the rows to draw, oldest first: only these are formatted.
    public func visibleSeqs(rows: Int) -> [Int] {
        FollowingScroll.visibleSeqs(
            selected: selected, top: top, rows: rows, count: visibleCount, seq: { log.shownSeq(at: $0) },
            index: { log.shownIndex(atOrBefore: $0) })
    }
}
