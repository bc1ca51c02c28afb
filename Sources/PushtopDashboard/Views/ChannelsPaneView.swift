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
        var col = inner.column + 1
        for c in columns {
            let width = c == .name ? nameWidth : c.width
            drawCell(
                c.title, row: inner.row, column: col, width: width, right: c.rightAligned, limit: limit,
                role: .label, into: &canvas)
            col += width
        }
        let listRows = inner.height - 1
        guard listRows > 0 else { return }
        if state.channels.isEmpty, !state.isMultiApp {
            canvas.draw(
                "no channels: press s to subscribe", row: inner.row + 1, column: inner.column + 1,
                maxWidth: inner.width - 2, role: .dim)
            return
        }
        let rows = self.rows(state)
        let top = self.top(state, rows: rows, listRows: listRows)
        for (offset, row) in rows[top..<min(rows.count, top + listRows)].enumerated() {
            switch row {
            case .heading(let app):
                drawHeading(state, app: app, at: inner.row + 1 + offset, in: inner, into: &canvas)
            case .channel(let index):
                drawChannel(
                    state.channels[index], selected: index == state.selectedChannel, columns: columns,
                    nameWidth: nameWidth, at: inner.row + 1 + offset, in: inner, into: &canvas)
            }
        }
    }

    /// An app's heading: its label, state, channel count; the selected app marked.
    static func drawHeading(
        _ state: DashboardState, app: Int, at r: Int, in inner: Rect, into canvas: inout some Canvas
    ) {
        let a = state.apps[app]
        let count = state.channels.lazy.filter { $0.app == app }.count
        let selectedApp = app == state.selectedApp
        let text =
            (selectedApp ? "▸ " : "  ") + a.label + "  ● \(a.connection.state)  "
            + (count == 0 ? "no channels" : Format.counted(count, "channel"))
        canvas.draw(
            text, row: r, column: inner.column + 1, maxWidth: inner.width - 2,
            role: selectedApp ? .titleFocus : .label)
    }

    /// A channel's row, a cell per column; an error's reason takes the rest of the row.
    static func drawChannel(
        _ ch: ChannelInfo, selected: Bool, columns: [Column], nameWidth: Int, at r: Int, in inner: Rect,
        into canvas: inout some Canvas
    ) {
        let limit = inner.right - 1
        if selected {
            canvas.fill(Rect(row: r, column: inner.column, height: 1, width: inner.width), role: .selection)
        }
        var col = inner.column + 1
        for c in columns {
            let w = c == .name ? nameWidth : c.width
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
                    canvas.draw(
                        "error: " + reason, row: r, column: col, maxWidth: limit - col,
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
            drawCell(
                text, row: r, column: col, width: w, right: c.rightAligned, limit: limit, role: role,
                into: &canvas)
        }
    }

    /// A row of the channel list: an app's heading (several apps open) or a channel (its index).
    enum Row: Hashable {
        case heading(Int)
        case channel(Int)
    }

    /// The list's rows: the channels, under a heading per app when several apps are open.
    static func rows(_ state: DashboardState) -> [Row] {
        guard state.isMultiApp else { return state.channels.indices.map(Row.channel) }
        var rows: [Row] = []
        var i = 0
        for app in state.apps.indices {
            rows.append(.heading(app))
            while i < state.channels.count, state.channels[i].app == app {
                rows.append(.channel(i))
                i += 1
            }
        }
        // Channels of an app index that is not open (never expected) still show.
        while i < state.channels.count {
            rows.append(.channel(i))
            i += 1
        }
        return rows
    }

    /// The first row shown so that the selection (or the selected app's heading) is visible.
    static func top(_ state: DashboardState, rows: [Row], listRows: Int) -> Int {
        let target = state.currentChannel != nil ? Row.channel(state.selectedChannel) : Row.heading(state.selectedApp)
        let at = rows.firstIndex(of: target) ?? 0
        return max(0, min(at - listRows + 1, rows.count - listRows))
    }

    static func drawCell(
        _ text: String, row: Int, column: Int, width: Int, right: Bool, limit: Int, role: Role,
        into canvas: inout some Canvas
    ) {
        let room = min(width - 1, limit - column)
        guard room > 0 else { return }
        let clipped = DisplayWidth.truncate(text, to: room)
        let w = DisplayWidth.of(clipped)
        canvas.draw(clipped, row: row, column: right ? column + room - w : column, maxWidth: room, role: role)
    }
}
