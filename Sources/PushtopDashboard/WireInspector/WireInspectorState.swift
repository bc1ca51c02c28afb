import PusherProtocol

/// What a key does in the wire inspector.
public enum WireAction: Sendable, Hashable {
    case up, down, pageUp, pageDown, top, bottom
    /// Enter: open the selected frame (or close the open one).
    case open
    /// Show or hide pings and pongs.
    case toggleKeepAlives
    /// Filter the frames (the same syntax as the log's filter).
    case filter
    /// Esc: close the frame, else clear the filter, else leave the inspector.
    case close
}

/// The wire inspector's slice of the dashboard state: the frames, the selection, the open frame, and the
/// decrypted payloads of encrypted events (keyed by the frame they came in) to show beside the ciphertext.
public struct WireInspectorState: Sendable {
    /// What the dashboard must do after a wire action.
    public enum Outcome: Sendable, Hashable {
        case none
        /// Open the filter prompt.
        case promptFilter
        /// Leave the inspector.
        case leave
    }

    public internal(set) var log: WireLog
    /// The selected frame's seq; `nil` while following the newest.
    public internal(set) var selected: Int?
    /// The first shown seq while not following.
    public internal(set) var top = 0
    /// The frame open in the detail view, and its scroll.
    public internal(set) var detail: (seq: Int, scroll: Int)?
    private var decrypted: [String: String] = [:]
    private var decryptedOrder: [String] = []
    private var decryptedStart = 0
    /// Decrypted payloads remembered (the newest), to match against kept frames.
    static let decryptedCapacity = 2_000

    public init(capacity: Int) {
        log = WireLog(capacity: capacity)
    }

    /// Whether the list follows the newest frame.
    public var isFollowing: Bool { selected == nil }

    mutating func append(_ frames: [WireFrame]) {
        for frame in frames { log.append(frame) }
    }

    /// Remembers the decrypted data of an event on an encrypted channel that came with its raw frame.
    mutating func note(_ event: ChannelEvent) {
        guard let raw = event.rawFrame, ChannelKind(channelName: event.channel) == .encrypted,
            let data = event.dataText, decrypted[raw] == nil
        else { return }
        decrypted[raw] = data
        decryptedOrder.append(raw)
        if decryptedOrder.count - decryptedStart > WireInspectorState.decryptedCapacity {
            decrypted[decryptedOrder[decryptedStart]] = nil
            decryptedStart += 1
            if decryptedStart > 1024 {
                decryptedOrder.removeFirst(decryptedStart)
                decryptedStart = 0
            }
        }
    }

    /// The decrypted payload of an encrypted event frame, when the client delivered it.
    public func decryptedData(forFrame text: String) -> String? { decrypted[text] }

    /// Performs a wire action; `rows` is the number of list rows shown.
    mutating func perform(_ action: WireAction, rows: Int) -> Outcome {
        if let d = detail {
            if let scroll = Scrolling.detail(d.scroll, after: action, page: rows - 5) {
                detail?.scroll = scroll
            } else if action == .open || action == .close {
                detail = nil
            }
            return .none
        }
        if moveSelection(action, rows: rows) { return .none }
        switch action {
        case .up, .down, .pageUp, .pageDown, .top, .bottom: break  // moved the selection above
        case .open:
            if let seq = selected ?? newestSeq { detail = (seq, 0) }
        case .toggleKeepAlives:
            log.setShowsKeepAlives(!log.showsKeepAlives)
            if let s = selected, log.visibleIndex(atOrBefore: s) == nil { selected = nil }
        case .filter:
            return .promptFilter
        case .close:
            if log.filter != nil {
                log.setFilter(nil)
            } else {
                return .leave
            }
        }
        return .none
    }

    mutating func setFilter(_ filter: LogFilter?) {
        log.setFilter(filter)
        selected = nil
    }

    var newestSeq: Int? {
        log.visibleCount > 0 ? log.visibleSeq(at: log.visibleCount - 1) : nil
    }

    /// Moves the selection for a move key; `false` when `action` is not one.
    private mutating func moveSelection(_ action: WireAction, rows: Int) -> Bool {
        let (log, count) = (self.log, log.visibleCount)  // read before `selected` and `top` are lent out
        return FollowingScroll.perform(
            action, selected: &selected, top: &top, rows: rows, count: count, seq: { log.visibleSeq(at: $0) },
            index: { log.visibleIndex(atOrBefore: $0) })
    }

    /// The seqs of the rows to draw, oldest first.
    public func visibleSeqs(rows: Int) -> [Int] {
        FollowingScroll.visibleSeqs(
            selected: selected, top: top, rows: rows, count: log.visibleCount, seq: { log.visibleSeq(at: $0) },
            index: { log.visibleIndex(atOrBefore: $0) })
    }
}
