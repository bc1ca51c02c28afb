/// The event log pane: time, channel, event and a one-line data summary; errors and state changes in their
/// own roles; follow, pause, filter and dropped counts in the title.
public enum EventLogPaneView {
    /// The title's badge (paused, not following, dropped, total), in the longest form that fits beside the
    /// title in a box `width` wide: shortened step by step, never cut.
    static func badge(_ state: DashboardState, title: String, width: Int) -> String {
        let log = state.log
        let paused = state.pausedAt.map { max(0, log.nextSeq - $0) }
        let newCount = state.isFollowing ? nil : Optional(state.newBelowSelection)
        let dropped = log.dropped + state.droppedByUI
        func variant(_ level: Int) -> String {
            var badges: [String] = []
            if let paused {
                badges.append(
                    level == 0 ? "PAUSED +\(paused)" : level < 3 ? "PAUSED +\(Format.count(paused))" : "PAUSED")
            }
            if let n = newCount {
                switch level {
                case 0: badges.append(n > 0 ? "\(n) new ↓ End" : "not following · End")
                case 1, 2: badges.append(n > 0 ? "\(Format.count(n)) new ↓" : "not following")
                default: badges.append(n > 0 ? "\(Format.count(n)) new" : "held")
                }
            }
            if dropped > 0 {
                badges.append(
                    level == 0
                        ? "dropped \(dropped)"
                        : level < 3 ? "dropped \(Format.count(dropped))" : "-\(Format.count(dropped))")
            }
            if level < 2 { badges.append(Format.count(log.nextSeq)) }
            return badges.joined(separator: level < 3 ? " · " : " ")
        }
        return BoxBadge.fitting((0..<4).map(variant) + [""], title: title, width: width)
    }

    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        let log = state.log
        var title = "4 Event log"
        if let filter = log.filter { title += " · /\(filter.query) (\(Format.counted(log.visibleCount, "match")))" }
        canvas.box(
            rect, title: title, focused: state.focus == .log, badge: badge(state, title: title, width: rect.width))
        let inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        let seqs = state.visibleLogSeqs(rows: inner.height)
        if seqs.isEmpty {
            canvas.draw(
                log.filter == nil ? "waiting for events…" : "no entries match the filter", row: inner.row,
                column: inner.column + 1, maxWidth: inner.width - 2, role: .dim)
            return
        }
        let width = inner.width - 2
        let timeW = 13
        let appW =
            state.isMultiApp
            ? min(state.isMultiNode ? 22 : 12, (state.apps.map { DisplayWidth.of($0.label) }.max() ?? 0) + 1) : 0
        let channelW = min(22, max(8, width / 5))
        let eventW = min(26, max(8, width / 5))
        for (offset, seq) in seqs.enumerated() {
            guard let entry = log.entry(seq: seq) else { continue }
            var line = ColumnRow(
                row: inner.row + offset, in: inner, selected: seq == state.logSelected, canvas: &canvas)
            line.put(
                Format.clock(entry.time, utcOffset: state.configuration.utcOffset), timeW, .eventTime, into: &canvas)
            if appW > 0 {
                // Several apps open: each entry's app (its profile's name).
                let app = state.apps.indices.contains(entry.app) ? state.apps[entry.app].label : "?"
                line.put(app, appW, .label, into: &canvas)
            }
            // The channel column (or a mark) and the roles of the channel, name and data columns, by kind; a user
            // event is sent to the signed-in user, not to a channel: "@user" in the channel column.
            let (channel, roles): (String, (channel: Role, name: Role, data: Role)) =
                switch entry.kind {
                case .event: (entry.channel, (.eventChannel, .eventName, .eventData))
                case .error: (entry.channel.isEmpty ? "!" : entry.channel, (.eventError, .eventError, .eventError))
                case .state: (entry.channel.isEmpty ? "⇄" : entry.channel, (.eventState, .eventState, .eventState))
                case .user: ("@" + entry.channel, (.memberMe, .eventName, .eventData))
                case .info: (entry.channel.isEmpty ? "·" : entry.channel, (.eventInfo, .eventInfo, .eventInfo))
                }
            line.put(channel, channelW, roles.channel, into: &canvas)
            line.put(entry.event, eventW, roles.name, into: &canvas)
            line.put(entry.summary, line.remaining, roles.data, last: true, into: &canvas)
        }
    }
}
