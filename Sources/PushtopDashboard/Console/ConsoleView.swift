import PusherProtocol

/// `C`: the debug console, full screen: the counts and the sources, the type toggles, the followed socket's
/// lifetime, then one row per line (time, node, type, channel, event, socket, user, a summary) coloured by type;
/// "frequently seen" on the right; Enter opens a row's whole JSON. Only the rows on screen are formatted.
public enum ConsoleView {
    /// Lines above the rows: the counts, the toggles, the followed socket, the column heads.
    static func headerLines(_ console: ConsoleState) -> Int { console.followed == nil ? 3 : 4 }

    /// Rows of the list at the state's size (a page).
    static func listRows(_ state: DashboardState) -> Int {
        guard let body = state.layout?.body else { return 1 }
        return max(1, body.height - 2 - headerLines(state.console))
    }

    /// The width of "frequently seen" beside the rows (or `nil`: it takes the whole list).
    static func frequentWidth(_ inner: Rect) -> Int? { inner.width >= 100 ? 40 : nil }

    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        let console = state.console
        canvas.fill(rect, role: .text)
        var title = "Console"
        if let socket = console.followed?.socketID { title += " · socket \(socket)" }
        if !console.filter.isEmpty {
            title += " · /\(console.filter) (\(Format.counted(console.visibleCount, "match", plural: "matches")))"
        }
        var badges: [String] = []
        if console.isPaused { badges.append("PAUSED · \(Format.count(console.newWhilePaused)) new") }
        if !console.isFollowing, !console.isPaused { badges.append("not following · End") }
        if console.dropped > 0 { badges.append("dropped \(Format.count(console.dropped))") }
        badges.append(Format.counted(console.received, "row"))
        canvas.box(rect, title: title, focused: true, badge: badges.joined(separator: " · "))
        let inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        var r = inner.row
        drawStatus(state, row: r, inner: inner, into: &canvas)
        r += 1
        if r < inner.bottom {
            drawToggles(console, row: r, inner: inner, into: &canvas)
            r += 1
        }
        if let life = console.followed, r < inner.bottom {
            canvas.draw(
                lifetime(life, utcOffset: state.configuration.utcOffset), row: r, column: inner.column + 1,
                maxWidth: inner.width - 2, role: life.disconnectedAtMs == nil ? .stateConnected : .eventState)
            r += 1
        }
        let listWidth = inner.width - (console.showsFrequent ? frequentWidth(inner) ?? 0 : 0)
        if r < inner.bottom {
            let columns = Columns(width: listWidth - 2)
            canvas.draw(columns.heads, row: r, column: inner.column + 1, maxWidth: inner.width - 2, role: .label)
            r += 1
        }
        guard r < inner.bottom else { return }
        var list = Rect(row: r, column: inner.column, height: inner.bottom - r, width: inner.width)
        if console.showsFrequent {
            if let w = frequentWidth(inner) {
                list.width -= w
                drawFrequent(
                    state, in: Rect(row: list.row, column: list.right, height: list.height, width: w), into: &canvas)
            } else {
                drawFrequent(state, in: list, into: &canvas)
                return
            }
        }
        if console.received == 0 {
            drawCannotSee(state, in: list, into: &canvas)
        } else {
            drawRows(state, in: list, columns: Columns(width: list.width - 2), into: &canvas)
        }
        if let detail = console.detail {
            ConsoleDetailView.draw(state, seq: detail.seq, scroll: detail.scroll, in: rect, into: &canvas)
        }
    }

    /// The fixed columns of a row, narrower terminals dropping node and user first.
    struct Columns {
        let time = 13, type = 18
        var node = 0, channel = 0, event = 0, socket = 0, user = 0

        init(width: Int) {
            let wide = width >= 120
            node = wide ? 9 : 0
            user = wide ? 9 : 0
            socket = width >= 90 ? 11 : 0
            channel = width >= 160 ? 24 : 18
            event = width >= 160 ? 22 : 16
        }

        var heads: String {
            var s = DisplayWidth.pad("time", to: time)
            if node > 0 { s += DisplayWidth.pad("node", to: node) }
            s += DisplayWidth.pad("type", to: type) + DisplayWidth.pad("channel", to: channel)
            s += DisplayWidth.pad("event", to: event)
            if socket > 0 { s += DisplayWidth.pad("socket", to: socket) }
            if user > 0 { s += DisplayWidth.pad("user", to: user) }
            return s + "summary"
        }
    }

    static func drawRows(_ state: DashboardState, in rect: Rect, columns: Columns, into canvas: inout some Canvas) {
        let console = state.console
        let seqs = console.visibleSeqs(rows: rect.height)
        if seqs.isEmpty {
            let text =
                console.log.count == 0
                ? "no rows kept" : (console.isPaused ? "no rows before the pause match" : "no rows match")
            canvas.draw(text, row: rect.row, column: rect.column + 1, maxWidth: rect.width - 2, role: .dim)
            return
        }
        let offset = state.configuration.utcOffset
        for (i, seq) in seqs.enumerated() {
            guard let row = console.log.element(seq: seq) else { continue }
            var line = ColumnRow(row: rect.row + i, in: rect, selected: seq == console.selected, canvas: &canvas)
            let typeRole = Role.console(row.type)
            line.put(
                Format.clock(Double(row.timeMs) / 1000, utcOffset: offset), columns.time, .eventTime, into: &canvas)
            line.put(row.node ?? "", columns.node, .dim, into: &canvas)
            line.put(row.type.rawValue, columns.type, typeRole, into: &canvas)
            line.put(row.channel ?? row.channels?.first ?? "", columns.channel, .eventChannel, into: &canvas)
            line.put(row.event ?? "", columns.event, .eventName, into: &canvas)
            line.put(row.socketID ?? "", columns.socket, .value, into: &canvas)
            line.put(row.userID ?? "", columns.user, row.userID.map(Role.member) ?? .value, into: &canvas)
            line.put(
                ConsoleRowText.summary(row), line.remaining, row.type == .gap ? typeRole : .eventData, into: &canvas)
        }
    }

    /// The first line: connections and channels now (from the snapshot and the rows since), and the sources.
    static func drawStatus(_ state: DashboardState, row: Int, inner: Rect, into canvas: inout some Canvas) {
        let console = state.console
        var col = inner.column + 1
        if let total = console.counts.total {
            var text =
                "\(Format.counted(total.connections, "connection")) now · \(Format.counted(total.channels, "channel")) occupied"
            if console.counts.tallies.count > 1, !console.counts.tallies.contains(where: \.cluster) {
                text += " (\(console.counts.tallies.count) nodes)"
            } else if console.counts.tallies.contains(where: \.cluster) {
                text += " (cluster)"
            }
            col += canvas.draw(text, row: row, column: col, maxWidth: inner.right - col - 1, role: .value)
            if total.approximate {
                col += canvas.draw(
                    " · approximate (rows were missed) until the next snapshot", row: row, column: col,
                    maxWidth: max(0, inner.right - col - 1), role: .statusError)
            }
        } else {
            col += canvas.draw(
                "counts: need a pushtop serve feed", row: row, column: col, maxWidth: inner.right - col - 1,
                role: .dim)
        }
        for source in console.sources {
            guard col < inner.right - 3 else { break }
            let (text, role) = sourceBadge(source)
            col += canvas.draw("  ", row: row, column: col, maxWidth: inner.right - col - 1, role: .text)
            col += canvas.draw(text, row: row, column: col, maxWidth: max(0, inner.right - col - 1), role: role)
        }
    }

    static func sourceBadge(_ s: ConsoleSourceStatus) -> (String, Role) {
        let what = s.kind == .serverFeed ? "feed \(s.name)" : s.name
        switch s.state {
        case .connecting: return ("● \(what): connecting", .stateConnecting)
        case .live: return ("● \(what)", .stateConnected)
        case .failed(let text): return ("● \(what): \(text)", .stateFailed)
        case .unavailable: return ("● \(what): unavailable", .stateUnavailable)
        }
    }

    static func drawToggles(_ console: ConsoleState, row: Int, inner: Rect, into canvas: inout some Canvas) {
        var col = inner.column + 1
        for group in ConsoleTypeGroup.allCases {
            guard col < inner.right - 1 else { break }
            let on = !console.hidden.contains(group)
            col += canvas.draw(
                "\(group.rawValue)", row: row, column: col, maxWidth: inner.right - col - 1, role: .hintKey)
            col += canvas.draw(
                (on ? "[x] " : "[ ] ") + group.label + "  ", row: row, column: col,
                maxWidth: max(0, inner.right - col - 1),
                role: on ? Role.console(group.types[0]) : .dim)
        }
    }

    /// The followed socket on one line.
    static func lifetime(_ life: ConsoleSocketLife, utcOffset: Int) -> String {
        func clock(_ ms: Int64) -> String { Format.clock(Double(ms) / 1000, utcOffset: utcOffset) }
        var parts: [String] = []
        parts.append(life.connectedAtMs.map { "connected \(clock($0))" } ?? "connected before the rows kept")
        if let at = life.disconnectedAtMs {
            var s = "disconnected \(clock(at))"
            if let c = life.code { s += " code \(c)" + (life.reason.map { " \($0)" } ?? "") }
            if let by = life.closedBy { s += " by \(by.rawValue)" }
            if let ms = life.lifetimeMs { s += " after \(ConsoleView.lifetime(ms))" }
            parts.append(s)
        } else {
            parts.append("still connected")
        }
        if !life.channels.isEmpty {
            parts.append("in \(life.channels.joined(separator: ", "))")
        } else if life.left.isEmpty {
            parts.append("in no channel")
        }
        if !life.left.isEmpty { parts.append("left \(life.left.joined(separator: ", "))") }
        var origin: [String] = []
        if let a = life.remoteAddress { origin.append("from \(a)") }
        if let c = life.client { origin.append(c) }
        if let n = life.node { origin.append("on \(n)") }
        if !origin.isEmpty { parts.append(origin.joined(separator: " ")) }
        parts.append(Format.counted(life.rows, "row"))
        return "socket \(life.socketID): " + parts.joined(separator: " · ")
    }

    /// A connection's lifetime: `850 ms`, `2.5 s`, `4:05`.
    static func lifetime(_ ms: Int64) -> String {
        ms < 1000
            ? Format.millis(Double(ms) / 1000)
            : ms < 60_000 ? Format.seconds(Double(ms) / 1000) : Format.duration(Double(ms) / 1000)
    }

    static func drawFrequent(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        canvas.fill(rect, role: .text)
        for r in rect.row..<rect.bottom {
            canvas.draw("│", row: r, column: rect.column, maxWidth: 1, role: .border)
        }
        let nowMs = max(Int64(state.now * 1000), state.console.lastRowMs ?? 0)
        let top = state.console.frequency.top(max(1, (rect.height - 3) / 2), nowMs: nowMs)
        var r = rect.row
        let col = rect.column + 2, w = rect.width - 3
        func put(_ text: String, _ role: Role) {
            guard r < rect.bottom else { return }
            canvas.draw(text, row: r, column: col, maxWidth: w, role: role)
            r += 1
        }
        func list(_ title: String, _ items: [(String, Int)], _ role: Role) {
            put(title, .header)
            if items.isEmpty { put("  (none)", .dim) }
            let countWidth = items.map { String($0.1).count }.max() ?? 1
            for (name, n) in items {
                let count = String(n)
                put(String(repeating: " ", count: countWidth - count.count) + count + "  " + name, role)
            }
        }
        list("Frequently seen channels · 1 min", top.channels, .eventChannel)
        put("", .text)
        list("Frequently seen events · 1 min", top.events, .eventName)
    }

    /// With no row yet: what the console can and cannot see, from its sources' states.
    static func cannotSeeLines(_ console: ConsoleState) -> [(String, Role)] {
        let sources = console.sources
        guard !sources.isEmpty else {
            return [
                ("No console source: nothing to show yet.", .statusError),
                ("", .text),
                (
                    "Reverb sends no webhooks: connect to a pushtop serve (--node) or run pushtop in front of your webhook endpoint (--webhook-listen)",
                    .text
                ),
                ("", .text),
                (
                    "pushtop serve publishes its own debug feed: every connection, subscription, API call and webhook.",
                    .dim
                ),
                ("Pusher, soketi and sockudo send webhooks: pushtop --webhook-listen HOST:PORT shows them here.", .dim),
                ("A pushtop serve's debug feed needs the app id and secret (--app-id, --secret).", .dim),
            ]
        }
        var lines: [(String, Role)] = [("Nothing yet. What the console can and cannot see:", .header), ("", .text)]
        for s in sources {
            switch (s.kind, s.state) {
            case (.serverFeed, .connecting):
                lines.append(("\(s.name): connecting to the debug feed…", .stateConnecting))
            case (.serverFeed, .live):
                lines.append(("\(s.name): debug feed open; no row yet (nothing has happened since)", .stateConnected))
            case (.serverFeed, .failed(let text)):
                lines.append(("\(s.name): debug feed failed: \(text) (retrying)", .stateFailed))
            case (.serverFeed, .unavailable(let text)): lines.append(("\(s.name): \(text)", .stateUnavailable))
            case (.webhooks, .connecting): lines.append(("\(s.name): starting…", .stateConnecting))
            case (.webhooks, .live):
                let at = s.name.hasPrefix("webhooks on ") ? String(s.name.dropFirst("webhooks on ".count)) : s.name
                lines.append(("no webhook received yet on \(at)", .stateConnected))
            case (.webhooks, .failed(let text)): lines.append(("\(s.name): \(text)", .stateFailed))
            case (.webhooks, .unavailable(let text)): lines.append(("\(s.name): \(text)", .stateUnavailable))
            }
        }
        lines.append(("", .text))
        let feedLive = sources.contains { $0.kind == .serverFeed && $0.state == .live }
        let webhooks = sources.contains { $0.kind == .webhooks }
        if !feedLive {
            lines.append(
                (
                    "cannot see: connections, subscriptions, API messages, client events, errors (they need a pushtop serve feed)",
                    .dim
                ))
        }
        if !webhooks, !feedLive {
            lines.append(
                (
                    "Reverb sends no webhooks: connect to a pushtop serve (--node) or run pushtop in front of your webhook endpoint (--webhook-listen)",
                    .text
                ))
        } else if webhooks, !feedLive {
            lines.append(
                ("can see: what the server sends as webhooks (occupied, vacated, member and client events)", .dim))
        }
        return lines
    }

    static func drawCannotSee(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        var r = rect.row
        for (text, role) in cannotSeeLines(state.console) {
            for piece in DisplayWidth.wrap(text, to: max(1, rect.width - 2)) {
                guard r < rect.bottom else { return }
                canvas.draw(piece, row: r, column: rect.column + 1, maxWidth: rect.width - 2, role: role)
                r += 1
            }
        }
    }
}
