import PusherProtocol

/// A centred box drawn over the panes.
enum OverlayFrame {
    static func rect(in size: Size, width: Int, height: Int) -> Rect {
        let w = min(width, size.columns - 4), h = min(height, size.rows - 2)
        return Rect(row: (size.rows - h) / 2, column: (size.columns - w) / 2, height: h, width: w)
    }
}

/// `?`: every key of the key table with its help text.
public enum HelpOverlayView {
    public static func draw(_ state: DashboardState, into canvas: inout some Canvas) {
        let bindings = state.configuration.keyTable.bindings
        // Two columns when one does not fit the terminal's height.
        let twoColumns = bindings.count + 4 > canvas.size.rows - 2 && canvas.size.columns >= 120
        let perColumn = twoColumns ? (bindings.count + 1) / 2 : bindings.count
        let rect = OverlayFrame.rect(in: canvas.size, width: twoColumns ? 170 : 84, height: perColumn + 4)
        canvas.fill(rect, role: .overlay)
        canvas.box(rect, title: "Keys", focused: true, badge: "? or Esc closes")
        let inner = rect.inset(by: 1)
        let keyW = 14
        let columnW = twoColumns ? inner.width / 2 : inner.width
        for (n, binding) in bindings.enumerated() {
            let i = n % perColumn
            guard i < inner.height - 1 else { continue }
            let r = inner.row + 1 + i
            let c = inner.column + (n / perColumn) * columnW
            canvas.draw(binding.keyLabel, row: r, column: c + 2, maxWidth: keyW - 1, role: .hintKey)
            canvas.draw(binding.help, row: r, column: c + 2 + keyW, maxWidth: columnW - keyW - 3, role: .overlay)
        }
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
