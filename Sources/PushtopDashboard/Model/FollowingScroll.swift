/// Scrolling a list that follows its newest row until a row is selected, as the console and the wire inspector do:
/// the selection and the top row are sequence numbers (they stay on their rows as new rows arrive), the list is
/// read by position (`seq(at:)`, over its first `count` rows) and by sequence number (`index(atOrBefore:)`).
enum FollowingScroll {
    /// Moves the selection by `delta` rows in a window of `rows`: past the newest row it follows again (`nil`);
    /// from following, going up selects from the newest. The top row moves just enough to keep the selection in view.
    static func move(
        selected: inout Int?, top: inout Int, by delta: Int, rows: Int, count: Int, seq: (Int) -> Int,
        index: (Int) -> Int?
    ) {
        guard count > 0 else { return }
        let current: Int
        if let s = selected, let i = index(s), i < count {
            current = i
        } else {
            if delta > 0 { return }  // following already shows the newest
            current = count - 1
            top = seq(max(0, count - rows))
        }
        let target = current + delta
        if target >= count {
            selected = nil
            return
        }
        let position = max(0, target)
        selected = seq(position)
        var topIndex = index(top) ?? 0
        if position < topIndex { topIndex = position }
        if position >= topIndex + rows { topIndex = position - rows + 1 }
        top = seq(max(0, min(topIndex, count - 1)))
    }

    /// Applies a move key (a line, a page, the ends) to a list of `count` rows shown `rows` at a time: `top` selects
    /// the oldest row, `bottom` follows the newest again. `false` when `action` is not a move.
    static func perform<Move: ViewMoves>(
        _ action: Move, selected: inout Int?, top: inout Int, rows: Int, count: Int, seq: (Int) -> Int,
        index: (Int) -> Int?
    ) -> Bool {
        let page = max(1, rows - 1)
        let delta: Int
        switch action {
        case .up: delta = -1
        case .down: delta = 1
        case .pageUp: delta = -page
        case .pageDown: delta = page
        case .top:
            guard count > 0 else { return true }
            selected = seq(0)
            top = seq(0)
            return true
        case .bottom:
            selected = nil
            return true
        default: return false
        }
        move(selected: &selected, top: &top, by: delta, rows: rows, count: count, seq: seq, index: index)
        return true
    }

    /// The sequence numbers of the rows to draw in a window of `rows`, oldest first: the newest while following,
    /// else a window that holds the selection, as close to `top` as it can.
    static func visibleSeqs(
        selected: Int?, top: Int, rows: Int, count: Int, seq: (Int) -> Int, index: (Int) -> Int?
    ) -> [Int] {
        guard rows > 0, count > 0 else { return [] }
        var first: Int
        if let s = selected, let sel = index(s), sel < count {
            first = index(top) ?? 0
            if sel < first { first = sel }
            if sel >= first + rows { first = sel - rows + 1 }
            first = max(0, min(first, count - rows))
        } else {
            first = max(0, count - rows)
        }
        let last = min(count - 1, first + rows - 1)
        return (first...last).map(seq)
    }
}
