/// Draws a whole frame of the dashboard from a state.
public enum DashboardView {
    /// Draws `state` into `canvas` (which must be `state.size`). Every cell is written, so nothing of an
    /// older frame survives.
    public static func draw(_ state: DashboardState, into canvas: inout some Canvas) {
        canvas.fill(Rect(row: 0, column: 0, height: canvas.size.rows, width: canvas.size.columns), role: .text)
        guard let layout = Layout(size: canvas.size) else {
            TooSmallView.draw(size: canvas.size, into: &canvas)
            return
        }
        HeaderView.draw(state, in: layout.header, into: &canvas)
        switch state.view {
        case .panes:
            ConnectionPaneView.draw(state, in: layout.connection, into: &canvas)
            ChannelsPaneView.draw(state, in: layout.channels, into: &canvas)
            MembersPaneView.draw(state, in: layout.members, into: &canvas)
            EventLogPaneView.draw(state, in: layout.log, into: &canvas)
        case .wireInspector:
            WireInspectorView.draw(state, in: layout.body, into: &canvas)
        case .authInspector:
            AuthInspectorView.draw(state, in: layout.body, into: &canvas)
        case .channelBrowser:
            ChannelBrowserView.draw(state, in: layout.body, into: &canvas)
        case .console:
            ConsoleView.draw(state, in: layout.body, into: &canvas)
        }
        FooterView.draw(state, in: layout.footer, into: &canvas)
        switch state.overlay {
        case .none: break
        case .help: HelpOverlayView.draw(state, into: &canvas)
        case .detail(let seq, let scroll): DetailOverlayView.draw(state, seq: seq, scroll: scroll, into: &canvas)
        }
    }
}

/// The screen shown below the minimum size.
public enum TooSmallView {
    public static func draw(size: Size, into canvas: inout some Canvas) {
        let lines = [
            "terminal too small",
            "\(size.columns)x\(size.rows), need \(Layout.minimum.columns)x\(Layout.minimum.rows)",
            "q quits",
        ]
        let top = max(0, (size.rows - lines.count) / 2)
        for (i, line) in lines.enumerated() where top + i < size.rows {
            let w = DisplayWidth.of(line)
            let col = max(0, (size.columns - w) / 2)
            canvas.draw(
                line, row: top + i, column: col, maxWidth: size.columns - col, role: i == 0 ? .statusError : .text)
        }
    }
}

/// The top line: name, state, endpoint, totals, clock.
public enum HeaderView {
    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        canvas.fill(rect, role: .header)
        var col = rect.column
        col += canvas.draw(" pushtop ", row: rect.row, column: col, maxWidth: rect.right - col, role: .titleFocus)
        if state.isMultiApp {
            // The app keys act on.
            col += canvas.draw(
                " \(state.appLabel) \(state.selectedApp + 1)/\(state.apps.count) ", row: rect.row,
                column: col, maxWidth: max(0, rect.right - col), role: .header)
        }
        col += canvas.draw(
            " ● \(state.connection.state) ", row: rect.row, column: col, maxWidth: rect.right - col,
            role: Role.state(state.connection.state))
        if let path = state.recordingPath {
            col += canvas.draw(
                " ● REC \(path) ", row: rect.row, column: col, maxWidth: min(48, rect.right - col),
                role: .statusError)
        }
        if let replay = state.replay {
            col += canvas.draw(
                " \(replay.summary) ", row: rect.row, column: col, maxWidth: rect.right - col - 10,
                role: replay.damage == nil ? .titleFocus : .statusError)
        }
        var rest = "  \(state.connection.endpoint)"
        let channelCount =
            state.isMultiApp
            ? state.channels.lazy.filter { $0.app == state.selectedApp }.count
            : state.channels.count
        rest += "  \(Format.counted(channelCount, "channel"))  \(state.connection.rate.lastSecond) ev/s"
        let clock = Format.clock(state.now, utcOffset: state.configuration.utcOffset, millis: false) + " "
        let clockWidth = DisplayWidth.of(clock)
        col += canvas.draw(rest, row: rect.row, column: col, maxWidth: rect.right - col - clockWidth - 1, role: .header)
        if rect.right - clockWidth > col {
            canvas.draw(clock, row: rect.row, column: rect.right - clockWidth, maxWidth: clockWidth, role: .header)
        }
    }
}
