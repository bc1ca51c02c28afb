import PusherProtocol

/// `w`: every WebSocket frame in both directions (time, direction, kind, size, the raw text), in the body of
/// the screen; Enter opens one frame.
public enum WireInspectorView {
    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        let wire = state.wire
        let log = wire.log
        canvas.fill(rect, role: .text)
        var title = "Wire inspector" + state.appTitleSuffix
        if let filter = log.filter { title += " · /\(filter.query) (\(Format.counted(log.visibleCount, "match")))" }
        var badges: [String] = []
        if !log.showsKeepAlives { badges.append("pings hidden") }
        if !wire.isFollowing { badges.append("not following · End") }
        if log.dropped > 0 { badges.append("dropped \(log.dropped)") }
        badges.append(Format.counted(log.nextSeq + log.droppedUpstream, "frame"))
        canvas.box(rect, title: title, focused: true, badge: badges.joined(separator: " · "))
        let inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        let seqs = wire.visibleSeqs(rows: inner.height)
        if seqs.isEmpty {
            let text =
                log.count == 0
                ? (state.framesAvailable ? "waiting for frames…" : "no frames: this connection has no frame tap")
                : "no frames match"
            canvas.draw(text, row: inner.row, column: inner.column + 1, maxWidth: inner.width - 2, role: .dim)
        }
        for (offset, seq) in seqs.enumerated() {
            guard let entry = log.entry(seq: seq) else { continue }
            var line = ColumnRow(row: inner.row + offset, in: inner, selected: seq == wire.selected, canvas: &canvas)
            let f = entry.frame
            let inbound = f.direction == .inbound
            line.put(Format.clock(f.time, utcOffset: state.configuration.utcOffset), 13, .eventTime, into: &canvas)
            line.put(inbound ? "↓ in" : "↑ out", 6, inbound ? .eventChannel : .eventName, into: &canvas)
            line.put(f.kind.rawValue, 7, entry.isKeepAlive ? .dim : .label, into: &canvas)
            line.put(Format.bytes(f.size), 9, .value, into: &canvas)
            let summaryRole: Role = f.kind == .close ? .eventError : (entry.isKeepAlive ? .dim : .eventData)
            line.put(summary(f), line.remaining, summaryRole, into: &canvas)
        }
        if let detail = wire.detail {
            WireFrameDetailView.draw(state, seq: detail.seq, scroll: detail.scroll, in: rect, into: &canvas)
        }
    }

    /// A frame on one line.
    static func summary(_ f: WireFrame) -> String {
        switch f.kind {
        case .close: return "close \(f.closeCode.map(String.init) ?? "-") \(DisplayWidth.sanitized(f.text))"
        case .binary: return "(binary)"
        case .ping, .pong: return f.text.isEmpty ? "" : DisplayWidth.sanitized(f.text)
        case .text:
            // A row shows at most a few hundred columns: do not sanitize a megabyte to draw them.
            return DisplayWidth.sanitized(f.text.utf8.count > 1024 ? String(f.text.prefix(1024)) : f.text)
        }
    }
}

/// Enter in the wire inspector: one frame, its JSON indented (with the `data` string parsed too) and, for an
/// event on an encrypted channel, the decrypted payload beside the ciphertext.
public enum WireFrameDetailView {
    /// The left column (the frame) and the right one (the decrypted payload, empty when there is none).
    static func columns(for entry: WireEntry, state: DashboardState) -> (
        left: [(String, Role)], right: [(String, Role)]
    ) {
        let f = entry.frame
        var left: [(String, Role)] = []
        left.append(("time       " + Format.clock(f.time, utcOffset: state.configuration.utcOffset), .label))
        left.append(
            ("direction  " + (f.direction == .inbound ? "in (server → client)" : "out (client → server)"), .label))
        left.append(("kind       " + f.kind.rawValue, .label))
        left.append(("size       " + Format.bytes(f.size), .label))
        if let code = f.closeCode { left.append(("close code \(code) \(CloseCode.meaning(of: code))", .eventError)) }
        left.append(("", .text))
        var right: [(String, Role)] = []
        if f.kind == .text, let json = JSONValue.parseIfJSON(f.text) {
            left.append(("frame (JSON)", .header))
            for line in JSONText.prettyLines(f.text) ?? json.prettyLines() { left.append((line, .eventData)) }
            if let data = json["data"]?.stringValue, let inner = JSONValue.parseIfJSON(data),
                inner.objectValue != nil || inner.arrayValue != nil
            {
                left.append(("", .text))
                left.append(("data (parsed)", .header))
                for line in JSONText.prettyLines(data) ?? inner.prettyLines() { left.append((line, .eventData)) }
            }
            if let channel = json["channel"]?.stringValue, ChannelKind(channelName: channel) == .encrypted {
                // Level with the ciphertext.
                let at = left.lastIndex { $0.0 == "data (parsed)" } ?? left.lastIndex { $0.0 == "frame (JSON)" } ?? 0
                right = Array(repeating: ("", .text), count: at)
                right.append(("decrypted", .header))
                right += JSONText.payloadLines(
                    state.wire.decryptedData(forFrame: f.text),
                    missing: "(no decrypted event matches this frame)")
            }
        } else {
            left.append(("payload", .header))
            left.append((f.text.isEmpty ? "(empty)" : DisplayWidth.sanitized(f.text), .eventData))
        }
        return (left, right)
    }

    /// The columns at an inner width: side by side from 80 columns, else the right one under the left one;
    /// long lines wrapped to their column.
    static func arranged(_ entry: WireEntry, state: DashboardState, width: Int)
        -> (left: [(String, Role)], right: [(String, Role)], leftWidth: Int)
    {
        var (left, right) = columns(for: entry, state: state)
        var leftWidth = width - 2
        if !right.isEmpty {
            if width >= 80 {
                leftWidth = (width - 3) / 2
            } else {
                left += [("", .text)] + right.drop { $0.0.isEmpty }
                right = []
            }
        }
        let rightWidth = width - leftWidth - 5
        func wrapped(_ line: (String, Role), _ w: Int) -> [(String, Role)] {
            let indent = String(repeating: " ", count: line.0.prefix { $0 == " " }.count + 2)
            return DisplayWidth.wrap(line.0, to: w, continuation: indent).map { ($0, line.1) }
        }
        guard !right.isEmpty else { return (left.flatMap { wrapped($0, leftWidth) }, [], leftWidth) }
        // Row by row, so that lines side by side stay level when one of them wraps.
        var l: [(String, Role)] = [], r: [(String, Role)] = []
        for i in 0..<max(left.count, right.count) {
            let a = i < left.count ? wrapped(left[i], leftWidth) : []
            let b = i < right.count ? wrapped(right[i], rightWidth) : []
            let rows = max(a.count, b.count)
            l += a + Array(repeating: ("", .text), count: rows - a.count)
            r += b + Array(repeating: ("", .text), count: rows - b.count)
        }
        return (l, r, leftWidth)
    }

    /// Rows a page moves and the last first line at the state's size (for scrolling keys).
    static func scrollMetrics(_ state: DashboardState, seq: Int) -> (page: Int, last: Int) {
        guard let body = state.layout?.body, let entry = state.wire.log.entry(seq: seq) else { return (1, 0) }
        let inner = body.inset(by: 1).inset(by: 1)
        guard inner.height > 0 else { return (1, 0) }
        let (left, right, _) = arranged(entry, state: state, width: inner.width)
        return (max(1, inner.height - 1), max(0, max(left.count, right.count) - inner.height))
    }

    public static func draw(
        _ state: DashboardState, seq: Int, scroll: Int, in body: Rect, into canvas: inout some Canvas
    ) {
        let rect = body.inset(by: 1)
        canvas.fill(rect, role: .overlay)
        canvas.box(rect, title: "Frame #\(seq)", focused: true, badge: "↑↓ PgUp PgDn g G · Esc closes")
        let inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        guard let entry = state.wire.log.entry(seq: seq) else {
            canvas.draw(
                "this frame has left the inspector (buffer full)", row: inner.row, column: inner.column + 1,
                maxWidth: inner.width - 2, role: .dim)
            return
        }
        let (left, right, leftWidth) = arranged(entry, state: state, width: inner.width)
        let total = max(left.count, right.count)
        let top = max(0, min(scroll, total - inner.height))
        for i in 0..<inner.height where top + i < total {
            let r = inner.row + i
            if top + i < left.count {
                let line = left[top + i]
                canvas.draw(line.0, row: r, column: inner.column + 1, maxWidth: leftWidth, role: line.1)
            }
            if top + i < right.count {
                let line = right[top + i]
                let col = inner.column + 2 + leftWidth
                canvas.draw("│ ", row: r, column: col, maxWidth: 2, role: .border)
                canvas.draw(line.0, row: r, column: col + 2, maxWidth: inner.right - col - 3, role: line.1)
            } else if !right.isEmpty {
                canvas.draw("│", row: r, column: inner.column + 2 + leftWidth, maxWidth: 1, role: .border)
            }
        }
    }
}
