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
        let rect = OverlayFrame.rect(in: canvas.size, width: 84, height: bindings.count + 4)
        canvas.fill(rect, role: .overlay)
        canvas.box(rect, title: "Keys", focused: true, badge: "? or Esc closes")
        let inner = rect.inset(by: 1)
        let keyW = 14
        for (i, binding) in bindings.enumerated() where i < inner.height - 1 {
            let r = inner.row + 1 + i
            canvas.draw(binding.keyLabel, row: r, column: inner.column + 2, maxWidth: keyW - 1, role: .hintKey)
            canvas.draw(binding.help, row: r, column: inner.column + 2 + keyW, maxWidth: inner.width - keyW - 3,
                role: .overlay)
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
            var frame: [String: JSONValue] = ["event": .string(entry.event), "channel": .string(entry.channel)]
            if let text = entry.dataText { frame["data"] = .string(text) }
            if let user = entry.userID { frame["user_id"] = .string(user) }
            let raw = JSONValue.object(frame).jsonString
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
