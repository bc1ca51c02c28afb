/// The channels pane: name, kind, state, event count, rate sparkline and subscription count.
public enum ChannelsPaneView {
    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        canvas.box(rect, title: "2 Channels", focused: state.focus == .channels, badge: "\(state.channels.count)")
        let inner = rect.inset(by: 1)
        guard inner.height >= 1, inner.width >= 10 else { return }
        let kindW = 9, stateW = 12, eventsW = 7, subsW = 5
        let sparkW = inner.width >= 70 ? 12 : (inner.width >= 50 ? 6 : 0)
        let nameW = max(8, inner.width - kindW - stateW - eventsW - sparkW - subsW - 2)
        func columns(_ name: String, _ kind: String, _ st: String, _ events: String, _ spark: String, _ subs: String)
            -> [(String, Int, Bool)]
        {
            // (text, width, right-aligned)
            [(name, nameW, false), (kind, kindW, false), (st, stateW, false), (events, eventsW, true),
                (spark, sparkW, false), (subs, subsW, true)]
        }
        var col = inner.column + 1
        for (text, w, right) in columns("Channel", "Kind", "State", "Events", sparkW > 0 ? " Rate" : "", "Subs")
        where w > 0 {
            drawCell(text, row: inner.row, column: col, width: w, right: right, role: .label, into: &canvas)
            col += w
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
            let statusText: String
            let statusRole: Role
            switch ch.status {
            case .subscribing: (statusText, statusRole) = ("subscribing", .stateConnecting)
            case .subscribed: (statusText, statusRole) = ("subscribed", .stateConnected)
            case .error: (statusText, statusRole) = ("error", .channelError)
            }
            var col = inner.column + 1
            drawCell(ch.name, row: r, column: col, width: nameW, right: false,
                role: selected ? .selection : .eventChannel, into: &canvas)
            col += nameW
            drawCell(ch.kind.rawValue, row: r, column: col, width: kindW, right: false,
                role: selected ? .selection : .channelKind, into: &canvas)
            col += kindW
            if case .error(let reason) = ch.status {
                canvas.draw("error: " + reason, row: r, column: col, maxWidth: inner.right - col - 1,
                    role: selected ? .selection : .channelError)
                continue
            }
            drawCell(statusText, row: r, column: col, width: stateW, right: false,
                role: selected ? .selection : statusRole, into: &canvas)
            col += stateW
            drawCell(Format.count(ch.events), row: r, column: col, width: eventsW, right: true,
                role: selected ? .selection : .value, into: &canvas)
            col += eventsW
            if sparkW > 0 {
                drawCell(" " + Sparkline.render(ch.rate.recent(sparkW - 2)), row: r, column: col, width: sparkW,
                    right: false, role: selected ? .selection : .sparkline, into: &canvas)
                col += sparkW
            }
            drawCell(ch.subscriptionCount.map(String.init) ?? "-", row: r, column: col, width: subsW, right: true,
                role: selected ? .selection : .value, into: &canvas)
        }
    }

    static func drawCell(_ text: String, row: Int, column: Int, width: Int, right: Bool, role: Role,
        into canvas: inout some Canvas)
    {
        let clipped = DisplayWidth.truncate(text, to: width - 1)
        let w = DisplayWidth.of(clipped)
        canvas.draw(clipped, row: row, column: right ? column + width - 1 - w : column, maxWidth: width - 1, role: role)
    }
}
