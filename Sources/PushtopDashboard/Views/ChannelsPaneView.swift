/// The channels pane: name, kind, state, event count, rate sparkline and subscription count. Narrow panes
/// drop the least useful columns first (sparkline, subscription count, events, kind).
public enum ChannelsPaneView {
    enum Column: CaseIterable {
        case name, kind, state, events, rate, subs

        var width: Int {
            switch self {
            case .name: return 0
            case .kind: return 9
            case .state: return 12
            case .events: return 7
            case .rate: return 12
            case .subs: return 5
            }
        }

        var title: String {
            switch self {
            case .name: return "Channel"
            case .kind: return "Kind"
            case .state: return "State"
            case .events: return "Events"
            case .rate: return " Rate"
            case .subs: return "Subs"
            }
        }

        var rightAligned: Bool { self == .events || self == .subs }
    }

    /// The columns that fit in `width` cells, and the name column's width.
    static func columns(for width: Int) -> (columns: [Column], nameWidth: Int) {
        var shown: [Column] = [.kind, .state, .events, .rate, .subs]
        let dropOrder: [Column] = [.rate, .subs, .events, .kind, .state]
        var i = 0
        while width - shown.reduce(0, { $0 + $1.width }) < 12, i < dropOrder.count {
            shown.removeAll { $0 == dropOrder[i] }
            i += 1
        }
        return ([.name] + shown, max(1, width - shown.reduce(0, { $0 + $1.width })))
    }

    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        canvas.box(rect, title: "2 Channels", focused: state.focus == .channels, badge: "\(state.channels.count)")
        let inner = rect.inset(by: 1)
        guard inner.height >= 1, inner.width >= 4 else { return }
        let limit = inner.right - 1
        let (columns, nameWidth) = self.columns(for: inner.width - 2)
        func width(_ c: Column) -> Int { c == .name ? nameWidth : c.width }
        var col = inner.column + 1
        for c in columns {
            drawCell(c.title, row: inner.row, column: col, width: width(c), right: c.rightAligned, limit: limit,
                role: .label, into: &canvas)
            col += width(c)
        }
        let listRows = inner.height - 1
        guard listRows > 0 else { return }
        if state.channels.isEmpty {
            canvas.draw("no channels: press s to subscribe", row: inner.row + 1, column: inner.column + 1,
                maxWidth: inner.width - 2, role: .dim)
            return
        }
        let top = max(0, state.selectedChannel - listRows + 1)
        for (offset, index) in (top..<min(state.channels.count, top + listRows)).enumerated() {
            let ch = state.channels[index]
            let r = inner.row + 1 + offset
            let selected = index == state.selectedChannel
            if selected {
                canvas.fill(Rect(row: r, column: inner.column, height: 1, width: inner.width), role: .selection)
            }
            var col = inner.column + 1
            for c in columns {
                let w = width(c)
                defer { col += w }
                let text: String
                var role: Role
                switch c {
                case .name: (text, role) = (ch.name, .eventChannel)
                case .kind: (text, role) = (ch.kind.rawValue, .channelKind)
                case .state:
                    switch ch.status {
                    case .subscribing: (text, role) = ("subscribing", .stateConnecting)
                    case .subscribed: (text, role) = ("subscribed", .stateConnected)
                    case .error(let reason):
                        // The reason takes the rest of the row.
                        canvas.draw("error: " + reason, row: r, column: col, maxWidth: limit - col,
                            role: selected ? .selection : .channelError)
                        col = limit
                        continue
                    }
                case .events: (text, role) = (Format.count(ch.events), .value)
                case .rate: (text, role) = (" " + Sparkline.render(ch.rate.recent(w - 2)), .sparkline)
                case .subs: (text, role) = (ch.subscriptionCount.map(String.init) ?? "-", .value)
                }
                if col >= limit { continue }
                if selected { role = .selection }
                drawCell(text, row: r, column: col, width: w, right: c.rightAligned, limit: limit, role: role,
                    into: &canvas)
            }
        }
    }

    static func drawCell(_ text: String, row: Int, column: Int, width: Int, right: Bool, limit: Int, role: Role,
        into canvas: inout some Canvas)
    {
        let room = min(width - 1, limit - column)
        guard room > 0 else { return }
        let clipped = DisplayWidth.truncate(text, to: room)
        let w = DisplayWidth.of(clipped)
        canvas.draw(clipped, row: row, column: right ? column + room - w : column, maxWidth: room, role: role)
    }
}
