extension DashboardState {
    /// The newest entry the log view may show (the pause point while paused).
    var newestVisibleSeq: Int? {
        let limit = (pausedAt ?? log.nextSeq) - 1
        guard let i = log.visibleIndex(atOrBefore: limit) else { return nil }
        return log.visibleSeq(at: i)
    }

    /// Entries newer than the selection (the "N new" badge while not following).
    public var newBelowSelection: Int {
        guard let selected = logSelected else { return 0 }
        // The selected entry has left the log (buffer full): every kept entry is newer.
        if selected < log.firstSeq { return log.visibleCount }
        guard let i = log.visibleIndex(atOrBefore: selected) else { return 0 }
        return log.visibleCount - 1 - i
    }

    /// Whether the log follows the newest entry.
    public var isFollowing: Bool { logSelected == nil }

    mutating func move(by delta: Int) {
        switch focus {
        case .connection:
            break
        case .channels:
            guard !channels.isEmpty else { return }
            selectedChannel = max(0, min(channels.count - 1, selectedChannel + delta))
            followChannelSelection()
            memberTop = 0
        case .members:
            memberTop = max(0, min(MembersPaneView.lastTop(self), memberTop + delta))
        case .log:
            moveLog(by: delta)
        }
    }

    mutating func moveLog(by delta: Int) {
        let count = log.visibleCount
        guard count > 0 else { return }
        let current: Int
        if let selected = logSelected, let i = log.visibleIndex(atOrBefore: selected) {
            current = i
        } else if let newest = newestVisibleSeq, let i = log.visibleIndex(atOrBefore: newest) {
            current = delta < 0 ? i : count - 1
            if logSelected == nil && delta > 0 { return }  // already following
        } else {
            return
        }
        let target = current + delta
        if target >= count {
            moveToBottom()
            return
        }
        let index = max(0, target)
        logSelected = log.visibleSeq(at: index)
        keepSelectionVisible(index: index)
    }

    mutating func keepSelectionVisible(index: Int) {
        let rows = max(1, layout?.logRows ?? 1)
        let topIndex = log.visibleIndex(atOrBefore: logTop) ?? 0
        var top = topIndex
        if log.entry(seq: logTop) == nil || logTop < log.firstSeq { top = max(0, index - rows + 1) }
        if index < top { top = index }
        if index >= top + rows { top = index - rows + 1 }
        logTop = log.visibleSeq(at: max(0, min(top, log.visibleCount - 1)))
    }

    mutating func moveToTop() {
        switch focus {
        case .channels:
            selectedChannel = 0
            followChannelSelection()
        case .members: memberTop = 0
        case .log:
            guard log.visibleCount > 0 else { return }
            logSelected = log.visibleSeq(at: 0)
            logTop = logSelected!
        case .connection: break
        }
    }

    mutating func moveToBottom() {
        switch focus {
        case .channels:
            selectedChannel = max(0, channels.count - 1)
            followChannelSelection()
        case .members: memberTop = MembersPaneView.lastTop(self)
        case .log:
            logSelected = nil
            pausedAt = nil
        case .connection: break
        }
    }

    /// The seqs of the log rows to draw, oldest first, for a pane with `rows` rows.
    public func visibleLogSeqs(rows: Int) -> [Int] {
        let count = log.visibleCount
        guard rows > 0, count > 0 else { return [] }
        let endIndex: Int
        if let selected = logSelected {
            let top = log.visibleIndex(atOrBefore: logTop) ?? 0
            let sel = log.visibleIndex(atOrBefore: selected) ?? 0
            var start = min(top, sel)
            if sel >= start + rows { start = sel - rows + 1 }
            endIndex = min(count - 1, start + rows - 1)
            // If the window is not full at the end, pull it up.
            let first = max(0, endIndex - rows + 1)
            return (first...endIndex).map { log.visibleSeq(at: $0) }
        } else {
            guard let newest = newestVisibleSeq, let i = log.visibleIndex(atOrBefore: newest) else { return [] }
            endIndex = i
        }
        let first = max(0, endIndex - rows + 1)
        return (first...endIndex).map { log.visibleSeq(at: $0) }
    }

    /// All kept log entries as JSON lines (for Ctrl-S); with several apps open each names its app.
    public func logJSONLines() -> [String] {
        guard isMultiApp else { return log.entries.map(\.jsonLine) }
        return log.entries.map { entry in
            let label = apps.indices.contains(entry.app) ? apps[entry.app].label : String(entry.app)
            return entry.jsonLine(app: label)
        }
    }
}
