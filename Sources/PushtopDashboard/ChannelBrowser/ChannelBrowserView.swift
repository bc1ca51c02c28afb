import PusherProtocol

/// `b`: the app's occupied channels from the HTTP API: name, kind, subscribers, users, whether this
/// dashboard is subscribed; sorted, filtered, refreshed every few seconds.
public enum ChannelBrowserView {
    /// Rows of channels the list shows at the state's size (a page).
    static func pageRows(_ state: DashboardState) -> Int {
        guard let body = state.layout?.body else { return 1 }
        return max(1, body.height - 3 - (state.browser.error == nil ? 0 : 1))
    }

    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        let browser = state.browser
        canvas.fill(rect, role: .text)
        var title = "Channel browser\(state.appTitleSuffix) · sorted by \(browser.sort.rawValue)"
        if !browser.filter.isEmpty { title += " · /\(browser.filter)" }
        var badge = Format.counted(browser.rows.count, "channel")
        if let at = browser.fetchedAt { badge += " · updated \(Format.seconds(max(0, state.now - at))) ago" }
        canvas.box(rect, title: title, focused: true, badge: badge)
        let inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        // A replay shows the answers it recorded.
        guard state.hasAPI || (state.replay != nil && browser.fetchedAt != nil) else {
            drawNeedsAPI(in: inner, into: &canvas)
            return
        }
        var row = inner.row
        if let error = browser.error {
            canvas.draw(
                "HTTP API: \(error)", row: row, column: inner.column + 1, maxWidth: inner.width - 2,
                role: .statusError)
            row += 1
        }
        let nameW = max(20, inner.width - 46)
        drawLine(
            [("Channel", nameW), ("Kind", 10), ("Subscribers", 12), ("Users", 8), ("Here", 8)], role: .header, at: row,
            in: inner, into: &canvas)
        row += 1
        let rows = browser.rows
        if rows.isEmpty {
            canvas.draw(
                browser.fetchedAt == nil ? "asking the HTTP API…" : "no occupied channels", row: row,
                column: inner.column + 1, maxWidth: inner.width - 2, role: .dim)
            return
        }
        let visible = inner.bottom - row
        let top = max(0, min(browser.selected - visible + 1, rows.count - visible))
        for (i, channel) in rows.enumerated().dropFirst(max(0, top)).prefix(max(0, visible)) {
            let selected = i == browser.selected
            if selected {
                canvas.fill(Rect(row: row, column: inner.column, height: 1, width: inner.width), role: .selection)
            }
            drawLine(
                [
                    (channel.name, nameW), (ChannelKind(channelName: channel.name).rawValue, 10),
                    (channel.subscriptionCount.map(String.init) ?? "-", 12),
                    (channel.userCount.map(String.init) ?? "-", 8),
                    (hereMark(state, channel: channel.name), 8),
                ], role: selected ? .selection : .text, at: row, in: inner, into: &canvas)
            row += 1
        }
    }

    /// Without the app's credentials: what the browser needs, and where to give it.
    static func drawNeedsAPI(in inner: Rect, into canvas: inout some Canvas) {
        let lines = [
            "The channel browser reads the app's HTTP API, which needs the app id and secret.",
            "Give --app-id ID and --secret SECRET (or PUSHER_APP_ID and PUSHER_APP_SECRET, or app_id and secret",
            "in the profile); the demo (pushtop demo) knows them.",
        ]
        for (i, line) in lines.enumerated() where i < inner.height {
            canvas.draw(
                line, row: inner.row + i, column: inner.column + 1, maxWidth: inner.width - 2,
                role: i == 0 ? .statusError : .text)
        }
    }

    /// A row of cells (text, width), each cut to its width, as many as fit in `inner`.
    static func drawLine(
        _ cells: [(String, Int)], role: Role, at r: Int, in inner: Rect, into canvas: inout some Canvas
    ) {
        var col = inner.column + 1
        for (text, w) in cells where col < inner.right - 1 {
            let width = min(w, inner.right - 1 - col)
            canvas.draw(
                DisplayWidth.truncate(text, to: width - 1), row: r, column: col, maxWidth: width, role: role)
            col += width
        }
    }

    /// Whether the dashboard is subscribed to the channel: ✓ only once the server confirmed the subscription;
    /// … while subscribing, ✗ when it was refused.
    static func hereMark(_ state: DashboardState, channel name: String) -> String {
        switch state.channels.first(where: { $0.name == name && $0.app == state.selectedApp })?.status {
        case .subscribed?: return "✓"
        case .subscribing?: return "…"
        case .error?: return "✗"
        case nil: return ""
        }
    }
}
