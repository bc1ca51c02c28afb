/// The connection pane: state, endpoint, socket, uptime, reconnects, last close, next attempt, ping,
/// last frame and an events-per-second sparkline. With several apps open, a row per app (label, state,
/// socket, events per second; the selected app marked) comes first, then the selected app's details.
public enum ConnectionPaneView {
    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        let title = state.isMultiApp ? "1 Connections" : "1 Connection"
        canvas.box(
            rect, title: title, focused: state.focus == .connection,
            badge: state.isMultiApp ? "\(state.apps.count) \(state.isMultiNode ? "nodes" : "apps") · A switches" : "")
        var inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        if state.isMultiApp {
            let used =
                state.nodes.map { NodeRowsView.draw(state, nodes: $0, in: inner, into: &canvas) }
                ?? drawApps(state, in: inner, into: &canvas)
            inner = Rect(row: inner.row + used, column: inner.column, height: inner.height - used, width: inner.width)
            guard !inner.isEmpty else { return }
        }
        drawDetails(state, in: inner, into: &canvas)
    }

    /// One row per app; returns the rows used (with a blank row after them when there is room).
    static func drawApps(_ state: DashboardState, in inner: Rect, into canvas: inout some Canvas) -> Int {
        let labelWidth = min(14, max(4, state.apps.map { DisplayWidth.of($0.label) }.max() ?? 4) + 1)
        var used = 0
        for (i, app) in state.apps.enumerated() where used < inner.height {
            drawAppRow(
                app, selected: i == state.selectedApp, labelWidth: labelWidth, row: inner.row + used, in: inner,
                into: &canvas)
            used += 1
        }
        return used < inner.height - 2 ? used + 1 : used
    }

    /// An app's row: the selection mark, its label, its connection's state, socket id and events per second.
    static func drawAppRow(
        _ app: AppState, selected: Bool, labelWidth: Int, row r: Int, in inner: Rect,
        into canvas: inout some Canvas
    ) {
        if selected {
            canvas.fill(Rect(row: r, column: inner.column, height: 1, width: inner.width), role: .selection)
        }
        var col = inner.column
        col += canvas.draw(selected ? "▸" : " ", row: r, column: col, maxWidth: 1, role: selected ? .selection : .label)
        canvas.draw(
            DisplayWidth.truncate(app.label, to: labelWidth - 1), row: r, column: col, maxWidth: labelWidth,
            role: selected ? .selection : .label)
        col += labelWidth
        let c = app.connection
        canvas.draw(
            "● \(c.state)", row: r, column: col, maxWidth: max(0, inner.right - col),
            role: selected ? .selection : Role.state(c.state))
        col += 14
        if col < inner.right - 1 {
            canvas.draw(
                (c.socketID ?? "-") + "  \(c.rate.lastSecond)/s", row: r, column: col,
                maxWidth: inner.right - 1 - col, role: selected ? .selection : .value)
        }
    }

    /// The selected app's connection: a row per detail, then the events-per-second sparkline.
    static func drawDetails(_ state: DashboardState, in inner: Rect, into canvas: inout some Canvas) {
        let c = state.connection
        let labelWidth = 11
        let rows = detailRows(state)
        // The state row always shows; the sparkline takes the last row when there is room for it.
        let infoRows = inner.height == 1 ? 1 : min(rows.count, inner.height - 1)
        for (i, row) in rows.prefix(infoRows).enumerated() {
            let r = inner.row + i
            canvas.draw(row.0, row: r, column: inner.column + 1, maxWidth: labelWidth, role: .label)
            canvas.draw(
                row.1, row: r, column: inner.column + 1 + labelWidth, maxWidth: inner.width - labelWidth - 2,
                role: row.2)
        }
        // The sparkline on the last inner row.
        let sparkRow = inner.row + infoRows
        if sparkRow < inner.bottom {
            canvas.draw("Events/s", row: sparkRow, column: inner.column + 1, maxWidth: labelWidth, role: .label)
            let rate = "\(c.rate.lastSecond)/s"
            let room = inner.width - labelWidth - 3 - DisplayWidth.of(rate)
            var used = 0
            if room > 0 {
                used = canvas.draw(
                    Sparkline.render(c.rate.recent(room)), row: sparkRow,
                    column: inner.column + 1 + labelWidth, maxWidth: room, role: .sparkline)
            }
            canvas.draw(
                " " + rate, row: sparkRow, column: inner.column + 1 + labelWidth + used,
                maxWidth: inner.right - (inner.column + 1 + labelWidth + used), role: .value)
        }
    }

    /// The details' rows (label, value, the value's role), the state first.
    static func detailRows(_ state: DashboardState) -> [(String, String, Role)] {
        let c = state.connection
        var rows: [(String, String, Role)] = []
        rows.append(("State", "● \(c.state)", Role.state(c.state)))
        rows.append(("Endpoint", c.endpoint.isEmpty ? "-" : c.endpoint, .value))
        rows.append(("Socket", c.socketID ?? "-", .value))
        // Shown once signing in is asked for: who the connection is signed in as, or why it is not.
        if let user = c.signedInUser {
            rows.append(("User", "● " + user, .stateConnected))
        } else if let error = c.signInError {
            rows.append(("User", "sign-in failed: " + error, .channelError))
        } else if c.signInRequested {
            rows.append(("User", "signing in…", .stateConnecting))
        }
        rows.append(("Uptime", c.connectedSince.map { Format.duration(state.now - $0) } ?? "-", .value))
        rows.append(("Reconnects", String(c.reconnects), .value))
        if let closure = c.lastClosure {
            let code = closure.code.map(String.init) ?? "-"
            rows.append(("Last close", "\(code) \(closure.meaning)", .channelError))
            rows.append(("Action", closure.action.rawValue, .value))
        } else {
            rows.append(("Last close", "-", .value))
            rows.append(("Action", "-", .value))
        }
        if let next = c.nextAttemptAt, c.state != .connected {
            rows.append(("Next try", "in " + Format.seconds(max(0, next - state.now)), .stateConnecting))
        } else {
            rows.append(("Next try", "-", .value))
        }
        rows.append(("Ping", c.roundTrip.map(Format.millis) ?? "-", .value))
        rows.append(
            (
                "Last frame", c.lastFrameAt.map { Format.seconds(max(0, state.now - $0)) + " ago" } ?? "-",
                .value
            ))
        return rows
    }
}
