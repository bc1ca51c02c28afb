/// The members pane: the roster of the selected presence channel, `me` marked, a stable colour per member,
/// joins and leaves highlighted for a moment.
public enum MembersPaneView {
    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        guard let channel = state.memberChannel, let roster = state.rosters[channel] else {
            canvas.box(rect, title: "3 Members", focused: state.focus == .members)
            let inner = rect.inset(by: 1)
            if !inner.isEmpty {
                canvas.draw("no presence channel", row: inner.row, column: inner.column + 1,
                    maxWidth: inner.width - 2, role: .dim)
            }
            return
        }
        // The presence check: members the client holds that the server does not (ghosts), and the reverse.
        let present = Set(roster.rows.filter { $0.leftAt == nil }.map(\.member.userID))
        let check = state.presenceCheck.differences(channel, clientUserIDs: present)
        var badge = "\(roster.count)"
        if let check {
            let n = check.ghosts.count + check.missing.count
            badge += n == 0 ? " · ✓ server" : " · \(n) differ"
        }
        canvas.box(rect, title: "3 Members · \(channel)", focused: state.focus == .members, badge: badge)
        let inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        let rows = roster.rows
        let missing = check?.missing ?? []
        defer {
            // Missing members (on the server, not in the client's roster) after the roster.
            let shown = min(rows.count, inner.height)
            for (i, id) in missing.enumerated() where shown + i < inner.height {
                canvas.draw("? \(id) missing: on the server only", row: inner.row + shown + i, column: inner.column + 1,
                    maxWidth: inner.width - 2, role: .eventError)
            }
        }
        let top = max(0, min(state.memberTop, rows.count - inner.height))
        for (offset, row) in rows[top..<min(rows.count, top + inner.height)].enumerated() {
            let r = inner.row + offset
            let id = row.member.userID
            let isMe = id == roster.me
            let highlight: Role? = row.leftAt != nil ? .memberLeave : (row.joinedAt != nil ? .memberJoin : nil)
            if let highlight {
                canvas.fill(Rect(row: r, column: inner.column, height: 1, width: inner.width), role: highlight)
            }
            var col = inner.column + 1
            col += canvas.draw(row.leftAt != nil ? "○ " : "● ", row: r, column: col, maxWidth: 2,
                role: highlight ?? Role.member(id))
            let idWidth = min(DisplayWidth.of(id), max(4, inner.width / 2))
            col += canvas.draw(DisplayWidth.truncate(id, to: idWidth), row: r, column: col, maxWidth: idWidth,
                role: highlight ?? (isMe ? .memberMe : Role.member(id)))
            if isMe {
                col += canvas.draw(" (me)", row: r, column: col, maxWidth: inner.right - col, role: highlight ?? .memberMe)
            }
            if row.leftAt == nil, check?.ghosts.contains(id) == true {
                col += canvas.draw(" ghost: not on the server", row: r, column: col, maxWidth: inner.right - col - 1,
                    role: .eventError)
            }
            if let info = row.member.userInfo {
                canvas.draw(DisplayWidth.truncate(" " + info.jsonString, to: inner.right - col - 1), row: r, column: col,
                    maxWidth: inner.right - col - 1,
                    role: highlight ?? .dim)
            }
        }
    }
}
