import PusherProtocol

/// A centred box drawn over the panes.
enum OverlayFrame {
    static func rect(in size: Size, width: Int, height: Int) -> Rect {
        let w = min(width, size.columns - 4), h = min(height, size.rows - 2)
        return Rect(row: (size.rows - h) / 2, column: (size.columns - w) / 2, height: h, width: w)
    }
}

/// `?`: every key of the key table with its help text: the panes' keys on the left, the keys of each debugger
/// view (wire inspector, auth inspector, replay) under its name on the right when the terminal is wide enough.
public enum HelpOverlayView {
    /// The heading of a scope's section, `nil` for the panes' keys.
    static func section(_ scope: KeyBinding.Scope) -> String? {
        switch scope {
        case .global, .pane: return nil
        case .view(.wireInspector): return "wire inspector (w)"
        case .view(.authInspector): return "auth inspector (a on a channel)"
        case .view(.channelBrowser): return "channel browser (b)"
        case .view(.console): return "debug console (C)"
        case .view(.panes): return "panes"
        case .replay: return "replay (pushtop replay FILE)"
        }
    }

    /// Lines of one column: a heading (`nil` binding) or a binding.
    static func lines(_ bindings: [KeyBinding], headed: Bool) -> [(heading: String?, binding: KeyBinding?)] {
        guard headed else { return bindings.map { (nil, $0) } }
        var out: [(String?, KeyBinding?)] = []
        var last: String?
        for b in bindings {
            let h = section(b.scope)
            if h != last, let h {
                if !out.isEmpty { out.append((nil, nil)) }
                out.append((h, nil))
            }
            last = h
            out.append((nil, b))
        }
        return out
    }

    /// The panes' bindings, each set of keys once: `End/G` goes to the end everywhere and makes the log follow
    /// again, one line (the log's binding, which says both).
    static func mainBindings(_ table: KeyTable) -> [KeyBinding] {
        var seen: Set<[Key]> = []
        return table.bindings.filter { section($0.scope) == nil && seen.insert($0.keys).inserted }
    }

    /// What the overlay shows at a size: its box, the columns' lines, and whether they sit side by side.
    static func arrangement(_ state: DashboardState, size: Size) -> (
        rect: Rect, left: [(heading: String?, binding: KeyBinding?)],
        right: [(heading: String?, binding: KeyBinding?)], twoColumns: Bool, leftHelp: Int
    ) {
        let table = state.configuration.keyTable
        let main = mainBindings(table)
        // A view's key that does what the same key does in the panes (PgDn: page down) is listed once, there.
        let views = table.bindings.filter { b in
            section(b.scope) != nil
                && !table.bindings.contains { section($0.scope) == nil && $0.keys == b.keys && $0.help == b.help }
        }
        let left = lines(main, headed: false)
        let right = lines(views, headed: true)
        let leftHelp = main.map { DisplayWidth.of($0.help) }.max() ?? 40
        // Side by side when the panes' keys fit; the views' keys (the longer column) may scroll.
        let twoColumns = size.columns >= 120 && left.count + 4 <= size.rows - 2
        let rows = twoColumns ? max(left.count, right.count) : left.count + 1 + right.count
        let rect = OverlayFrame.rect(in: size, width: twoColumns ? size.columns : 100, height: rows + 4)
        return twoColumns
            ? (rect, left, right, true, leftHelp) : (rect, left + [(nil, nil)] + right, [], false, leftHelp)
    }

    /// Rows a page moves and the last first line, for scrolling keys (the help scrolls on short terminals).
    static func scrollMetrics(_ state: DashboardState) -> (page: Int, last: Int) {
        let a = arrangement(state, size: state.size)
        let visible = max(1, a.rect.height - 3)
        return (max(1, visible - 1), max(0, max(a.left.count, a.right.count) - visible))
    }

    public static func draw(_ state: DashboardState, into canvas: inout some Canvas) {
        let a = arrangement(state, size: canvas.size)
        let rect = a.rect
        let keyW = 14
        let inner = rect.inset(by: 1)
        let visible = max(1, inner.height - 1)
        let total = max(a.left.count, a.right.count)
        let top = max(0, min(state.helpScroll, total - visible))
        canvas.fill(rect, role: .overlay)
        canvas.box(
            rect, title: "Keys", focused: true,
            badge: total <= visible
                ? "? or Esc closes"
                : "\(top + 1)-\(min(total, top + visible))/\(total)\(top + visible < total ? " · PgDn more" : "") · ? or Esc closes"
        )
        let leftW = a.twoColumns ? min(inner.width / 2 + 12, keyW + a.leftHelp + 3) : inner.width
        func put(_ column: [(heading: String?, binding: KeyBinding?)], at c: Int, width: Int, keyWidth: Int) {
            for (i, line) in column.dropFirst(top).enumerated() where i < visible {
                let r = inner.row + 1 + i
                if let heading = line.heading {
                    canvas.draw(heading, row: r, column: c + 2, maxWidth: width - 3, role: .header)
                } else if let binding = line.binding {
                    canvas.draw(binding.keyLabel, row: r, column: c + 2, maxWidth: keyWidth - 1, role: .hintKey)
                    canvas.draw(
                        binding.help, row: r, column: c + 2 + keyWidth, maxWidth: width - keyWidth - 3,
                        role: .overlay)
                }
            }
        }
        put(a.left, at: inner.column, width: leftW, keyWidth: keyW)
        if a.twoColumns { put(a.right, at: inner.column + leftW, width: inner.width - leftW, keyWidth: 10) }
    }
}

/// Enter on a log entry: its fields, the data pretty-printed, and the frame.
public enum DetailOverlayView {
    static func lines(for entry: LogEntry, utcOffset: Int) -> [(String, Role)] {
        var lines: [(String, Role)] = []
        lines.append(("time     " + Format.clock(entry.time, utcOffset: utcOffset), .label))
        if !entry.channel.isEmpty { lines.append(("channel  " + entry.channel, .eventChannel)) }
        lines.append(("event    " + entry.event, .eventName))
        if let user = entry.userID { lines.append(("user_id  " + user, .value)) }
        lines.append(("", .text))
        lines.append(("data", .header))
        lines += JSONText.payloadLines(entry.dataText, missing: "(none)")
        if entry.kind == .event {
            lines.append(("", .text))
            lines.append(("frame", .header))
            let raw: String
            if let exact = entry.rawFrame {
                raw = DisplayWidth.sanitized(exact)
            } else {
                lines[lines.count - 1].0 = "frame (rebuilt from the event: this connection has no frame tap)"
                var frame: [String: JSONValue] = ["event": .string(entry.event), "channel": .string(entry.channel)]
                if let text = entry.dataText { frame["data"] = .string(text) }
                if let user = entry.userID { frame["user_id"] = .string(user) }
                raw = JSONValue.object(frame).jsonString
            }
            lines.append((raw, .dim))  // wrapped when drawn, never cut
        }
        return lines
    }

    /// The box at a screen size.
    static func rect(_ size: Size) -> Rect {
        OverlayFrame.rect(in: size, width: 100, height: size.rows - 4)
    }

    /// The lines as drawn `width` columns wide: long ones (a long string value, the frame) wrapped between
    /// grapheme clusters, continued under their indent.
    static func displayLines(for entry: LogEntry, utcOffset: Int, width: Int) -> [(String, Role)] {
        var out: [(String, Role)] = []
        for (text, role) in lines(for: entry, utcOffset: utcOffset) {
            let indent = String(repeating: " ", count: text.prefix { $0 == " " }.count + 2)
            for piece in DisplayWidth.wrap(text, to: width, continuation: indent) { out.append((piece, role)) }
        }
        return out
    }

    /// Rows a page moves and the last first line, for scrolling keys.
    static func scrollMetrics(_ state: DashboardState, seq: Int) -> (page: Int, last: Int) {
        let inner = rect(state.size).inset(by: 1)
        guard let entry = state.log.entry(seq: seq), inner.height > 0 else { return (1, 0) }
        let count = displayLines(for: entry, utcOffset: state.configuration.utcOffset, width: inner.width - 2).count
        return (max(1, inner.height - 1), max(0, count - inner.height))
    }

    public static func draw(_ state: DashboardState, seq: Int, scroll: Int, into canvas: inout some Canvas) {
        let rect = rect(canvas.size)
        canvas.fill(rect, role: .overlay)
        let inner = rect.inset(by: 1)
        guard let entry = state.log.entry(seq: seq) else {
            canvas.box(rect, title: "Event #\(seq)", focused: true, badge: "Esc closes")
            canvas.draw(
                "this entry has left the log (buffer full)", row: inner.row, column: inner.column + 1,
                maxWidth: inner.width - 2, role: .dim)
            return
        }
        let all = displayLines(for: entry, utcOffset: state.configuration.utcOffset, width: inner.width - 2)
        let top = max(0, min(scroll, all.count - inner.height))
        var badge = "↑↓ PgUp PgDn g G · Esc closes"
        if all.count > inner.height {
            badge = "\(top + 1)-\(min(all.count, top + inner.height))/\(all.count) · " + badge
        }
        canvas.box(rect, title: "Event #\(seq)", focused: true, badge: badge)
        for (i, line) in all[top..<min(all.count, top + inner.height)].enumerated() {
            canvas.draw(line.0, row: inner.row + i, column: inner.column + 1, maxWidth: inner.width - 2, role: line.1)
        }
    }
}
