import PusherProtocol

/// Enter in the console: one row's whole JSON, indented, and its `data` parsed when it is JSON; scrollable.
public enum ConsoleDetailView {
    static func lines(_ row: ConsoleRow) -> [(String, Role)] {
        var out: [(String, Role)] = [("row (JSON)", .header)]
        let json = row.jsonLine
        for line in JSONText.prettyLines(json) ?? [json] { out.append((DisplayWidth.sanitized(line), .eventData)) }
        if let data = row.data, let inner = JSONValue.parseIfJSON(data),
            inner.objectValue != nil || inner.arrayValue != nil
        {
            out.append(("", .text))
            out.append(("data (parsed)" + (row.dataTruncated == true ? ", cut by the feed" : ""), .header))
            for line in JSONText.prettyLines(data) ?? inner.prettyLines() {
                out.append((DisplayWidth.sanitized(line), .eventData))
            }
        }
        return out
    }

    /// The frame of the detail within the console's rect.
    static func frame(_ rect: Rect) -> Rect {
        Rect(row: rect.row + 1, column: rect.column + 2, height: max(0, rect.height - 2), width: max(0, rect.width - 4))
    }

    /// Lines a page scrolls and the last scroll position.
    static func scrollMetrics(_ state: DashboardState, seq: Int) -> (page: Int, last: Int) {
        guard let body = state.layout?.body, let row = state.console.log.element(seq: seq) else { return (1, 0) }
        let height = max(1, frame(body).height - 2)
        return (height, max(0, lines(row).count - height))
    }

    static func draw(_ state: DashboardState, seq: Int, scroll: Int, in rect: Rect, into canvas: inout some Canvas) {
        let box = frame(rect)
        guard box.height >= 3, box.width >= 10 else { return }
        canvas.fill(box, role: .overlay)
        guard let row = state.console.log.element(seq: seq) else {
            canvas.box(box, title: "Console row #\(seq)", focused: true)
            canvas.draw(
                "this row has left the console (buffer full)", row: box.row + 1, column: box.column + 2,
                maxWidth: box.width - 4, role: .dim)
            return
        }
        canvas.box(
            box, title: "Console row #\(seq) · \(row.type.rawValue)", focused: true, badge: "Esc/Enter close · f follow"
        )
        let inner = box.inset(by: 1)
        let all = lines(row)
        let top = max(0, min(scroll, all.count - inner.height))
        for i in 0..<inner.height where top + i < all.count {
            let (text, role) = all[top + i]
            canvas.draw(text, row: inner.row + i, column: inner.column + 1, maxWidth: inner.width - 2, role: role)
        }
    }
}
