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
