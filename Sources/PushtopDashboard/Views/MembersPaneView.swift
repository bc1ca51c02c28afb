import PushtopKit

/// The members pane: the roster of the selected presence channel, `me` marked, a stable colour per member,
/// joins and leaves highlighted for a moment; below it the signed-in user's watchlist (● online, ○ offline).

public enum MembersPaneView {
    /// The last first row the roster can be scrolled to (its rows minus those shown) at the state's size.
    static func lastTop(_ state: DashboardState) -> Int {
        guard let layout = state.layout, let channel = state.memberChannel, let roster = state.rosters[channel] else {
            return 0
        }
        var height = layout.members.height - 2
        if !state.watchlist.isEmpty, height >= 4 { height -= min(state.watchlist.users.count + 1, height / 2) }
        return max(0, roster.rows.count - max(1, height))
    }

    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        guard let channel = state.memberChannel, let roster = state.rosters[channel] else {
            drawWithoutRoster(state, in: rect, into: &canvas)
            return
        }
        let check = state.presenceCheck.judgement(channel)
        let title = "3 Members · \(channel)"
        canvas.box(
            rect, title: title, focused: state.focus == .members,
            badge: BoxBadge.fitting(badges(roster, check: check, now: state.now), title: title, width: rect.width))
        var inner = rect.inset(by: 1)
        guard !inner.isEmpty else { return }
        if !state.watchlist.isEmpty, inner.height >= 4 {
            // The watchlist takes the bottom rows: a heading and its users, at most half the pane.
            let height = min(state.watchlist.users.count + 1, inner.height / 2)
            drawWatchlist(
                state.watchlist,
                in: Rect(
                    row: inner.bottom - height, column: inner.column, height: height,
                    width: inner.width), into: &canvas)
            inner = Rect(row: inner.row, column: inner.column, height: inner.height - height, width: inner.width)
        }
        let rows = roster.rows
        let top = max(0, min(state.memberTop, rows.count - inner.height))
        for (offset, row) in rows[top..<min(rows.count, top + inner.height)].enumerated() {
            let id = row.member.userID
            drawMember(
                row, isMe: id == roster.me, isGhost: row.leftAt == nil && check?.ghosts.contains(id) == true,
                at: inner.row + offset, in: inner, into: &canvas)
        }
        // Missing members (on the server, not in the client's roster) after the roster.
        let shown = min(rows.count, inner.height)
        for (i, id) in (check?.missing ?? []).enumerated() where shown + i < inner.height {
            canvas.draw(
                "? \(id) missing: on the server only", row: inner.row + shown + i, column: inner.column + 1,
                maxWidth: inner.width - 2, role: .eventError)
        }
    }

    /// The pane with no presence roster to show: the watchlist if there is one, else a hint.
    static func drawWithoutRoster(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        if !state.watchlist.isEmpty {
            canvas.box(
                rect, title: "3 Members · watchlist", focused: state.focus == .members,
                badge: "\(state.watchlist.online.count) online")
            let inner = rect.inset(by: 1)
            if !inner.isEmpty { drawWatchlist(state.watchlist, in: inner, into: &canvas) }
            return
        }
        canvas.box(rect, title: "3 Members", focused: state.focus == .members)
        let inner = rect.inset(by: 1)
        if !inner.isEmpty {
            canvas.draw(
                "no presence channel", row: inner.row, column: inner.column + 1,
                maxWidth: inner.width - 2, role: .dim)
        }
    }

    /// The title's badge variants, longest first: the member count and the presence check's verdict. The check
    /// counts members the client holds that the server does not (ghosts), and the reverse, once two answers agree
    /// on them (``RosterAgreement``); `checking` while a first difference waits.
    static func badges(_ roster: MemberRoster, check: PresenceCheckState.Judgement?, now: Double) -> [String] {
        guard let check else { return ["\(roster.count)"] }
        let n = check.ghosts.count + check.missing.count
        let word = n > 0 ? "\(n) differ" : check.suspects > 0 ? "checking" : "✓ server"
        let age = now - check.at
        guard age >= 2 * PresenceCheckState.interval else { return ["\(roster.count) · \(word)"] }
        // The last answer is old (the requests fail): say so, shortened to fit rather than cut.
        let ago = Format.seconds(age) + " ago"
        let short = n > 0 ? "\(n) differ" : check.suspects > 0 ? "?" : "✓"
        return [
            "\(roster.count) · \(word) (as of \(ago))", "\(roster.count) · \(word) \(ago)",
            "\(roster.count) · \(short) \(ago)",
        ]
    }

    /// A member's row: ● present or ○ just left, the user id, `(me)`, a ghost's mark and the user info; a join or
    /// a leave highlighted for a moment.
    static func drawMember(
        _ row: MemberRoster.Row, isMe: Bool, isGhost: Bool, at r: Int, in inner: Rect,
        into canvas: inout some Canvas
    ) {
        let id = row.member.userID
        let highlight: Role? = row.leftAt != nil ? .memberLeave : (row.joinedAt != nil ? .memberJoin : nil)
        if let highlight {
            canvas.fill(Rect(row: r, column: inner.column, height: 1, width: inner.width), role: highlight)
        }
        var col = inner.column + 1
        col += canvas.draw(
            row.leftAt != nil ? "○ " : "● ", row: r, column: col, maxWidth: 2,
            role: highlight ?? Role.member(id))
        let idWidth = min(DisplayWidth.of(id), max(4, inner.width / 2))
        col += canvas.draw(
            DisplayWidth.truncate(id, to: idWidth), row: r, column: col, maxWidth: idWidth,
            role: highlight ?? (isMe ? .memberMe : Role.member(id)))
        if isMe {
            col += canvas.draw(
                " (me)", row: r, column: col, maxWidth: inner.right - col, role: highlight ?? .memberMe)
        }
        if isGhost {
            col += canvas.draw(
                " ghost: not on the server", row: r, column: col, maxWidth: inner.right - col - 1,
                role: .eventError)
        }
        if let info = row.member.userInfo {
            canvas.draw(
                DisplayWidth.truncate(" " + info.jsonString, to: inner.right - col - 1), row: r, column: col,
                maxWidth: inner.right - col - 1,
                role: highlight ?? .dim)
        }
    }

    /// The watchlist: a heading, then each watched user with a dot (● online, ○ offline).
    static func drawWatchlist(_ watchlist: Watchlist, in rect: Rect, into canvas: inout some Canvas) {
        guard rect.height > 0 else { return }
        canvas.draw(
            "Watchlist \(watchlist.online.count)/\(watchlist.users.count) online", row: rect.row,
            column: rect.column + 1, maxWidth: rect.width - 2, role: .label)
        for (offset, id) in watchlist.users.prefix(rect.height - 1).enumerated() {
            let online = watchlist.online.contains(id)
            let r = rect.row + 1 + offset
            let used = canvas.draw(
                online ? "● " : "○ ", row: r, column: rect.column + 1, maxWidth: 2,
                role: online ? .stateConnected : .dim)
            canvas.draw(
                id, row: r, column: rect.column + 1 + used, maxWidth: rect.width - 2 - used,
                role: online ? Role.member(id) : .dim)
        }
    }
}
