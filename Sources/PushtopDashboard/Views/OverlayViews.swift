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

    public static func draw(_ state: DashboardState, into canvas: inout some Canvas) {
        let bindings = state.configuration.keyTable.bindings
        let main = bindings.filter { section($0.scope) == nil }
        let views = bindings.filter { section($0.scope) != nil }
        let left = lines(main, headed: false)
        let right = lines(views, headed: true)
        let keyW = 14
        let leftHelp = main.map { DisplayWidth.of($0.help) }.max() ?? 40
        let twoColumns = canvas.size.columns >= 120 && max(left.count, right.count) + 4 <= canvas.size.rows - 2
        let all = twoColumns ? left : left + [(nil, nil)] + right
        let rows = twoColumns ? max(left.count, right.count) : all.count
        let rect = OverlayFrame.rect(in: canvas.size, width: twoColumns ? canvas.size.columns : 100, height: rows + 4)
        canvas.fill(rect, role: .overlay)
        canvas.box(rect, title: "Keys", focused: true, badge: "? or Esc closes")
        let inner = rect.inset(by: 1)
        let leftW = twoColumns ? min(inner.width / 2 + 12, keyW + leftHelp + 3) : inner.width
        func put(_ column: [(heading: String?, binding: KeyBinding?)], at c: Int, width: Int, keyWidth: Int) {
            for (i, line) in column.enumerated() where i < inner.height - 1 {
                let r = inner.row + 1 + i
                if let heading = line.heading {
                    canvas.draw(heading, row: r, column: c + 2, maxWidth: width - 3, role: .header)
                } else if let binding = line.binding {
                    canvas.draw(binding.keyLabel, row: r, column: c + 2, maxWidth: keyWidth - 1, role: .hintKey)
                    canvas.draw(binding.help, row: r, column: c + 2 + keyWidth, maxWidth: width - keyWidth - 3,
                        role: .overlay)
                }
            }
        }
        put(all, at: inner.column, width: leftW, keyWidth: keyW)
        if twoColumns { put(right, at: inner.column + leftW, width: inner.width - leftW, keyWidth: 10) }
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
        if let text = entry.dataText {
            if let json = JSONValue.parseIfJSON(text) {
                for line in json.prettyLines() { lines.append((line, .eventData)) }
            } else {
                lines.append((text, .eventData))
            }
        } else {
            lines.append(("(none)", .dim))
        }
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
            // Wrap the frame over several lines rather than cut it.
            var rest = Substring(raw)
            while !rest.isEmpty {
                let chunk = rest.prefix(96)
                lines.append((String(chunk), .dim))
                rest = rest.dropFirst(chunk.count)
            }
        }
        return lines
    }

    public static func draw(_ state: DashboardState, seq: Int, scroll: Int, into canvas: inout some Canvas) {
        let rect = OverlayFrame.rect(in: canvas.size, width: 100, height: canvas.size.rows - 4)
        canvas.fill(rect, role: .overlay)
        canvas.box(rect, title: "Event #\(seq)", focused: true, badge: "↑↓ scroll · Esc closes")
        let inner = rect.inset(by: 1)
        guard let entry = state.log.entry(seq: seq) else {
            canvas.draw("this entry has left the log (buffer full)", row: inner.row, column: inner.column + 1,
                maxWidth: inner.width - 2, role: .dim)
            return
        }
        let all = lines(for: entry, utcOffset: state.configuration.utcOffset)
        let top = max(0, min(scroll, all.count - inner.height))
        for (i, line) in all[top..<min(all.count, top + inner.height)].enumerated() {
            canvas.draw(line.0, row: inner.row + i, column: inner.column + 1, maxWidth: inner.width - 2, role: line.1)
        }
    }
}
