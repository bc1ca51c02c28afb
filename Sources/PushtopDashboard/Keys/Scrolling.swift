/// The key table's moves (one line, a page, the ends) applied to a list's selection or a scrolling view's
/// first line, the same way in every list and view.
public enum Scrolling {
    /// `offset` after `action`, kept within `0...last`; `page` is the rows a page moves. `nil` when `action`
    /// is not a move.
    public static func apply<Move: ViewMoves>(_ action: Move, to offset: Int, page: Int, last: Int) -> Int? {
        let last = max(0, last)
        let step = max(1, page)
        let target: Int
        switch action {
        case .up: target = offset - 1
        case .down: target = offset + 1
        case .pageUp: target = offset - step
        case .pageDown: target = offset + step
        case .top: target = 0
        case .bottom: target = last
        default: return nil
        }
        return max(0, min(last, target))
    }

    /// An open detail's first line after `action`, `page` lines a page; the end key does not move it (how long
    /// the detail is, its view knows). `nil` when `action` is not one of these moves.
    static func detail<Move: ViewMoves>(_ offset: Int, after action: Move, page: Int) -> Int? {
        action == .bottom ? nil : apply(action, to: offset, page: page, last: Int.max / 2)
    }
}

extension KeyTable {
    /// The move a key makes in a list or scrolling view that has no binding of its own for it: the panes'
    /// up, down, page and top/end keys (`k`/`↑`, `j`/`↓`, `PgUp`, `PgDn`, `g`/`Home`, `G`/`End`).
    public func move(for key: Key) -> Action? {
        for binding in bindings where binding.keys.contains(key) {
            guard case .global = binding.scope else { continue }
            switch binding.action {
            case .up, .down, .pageUp, .pageDown, .top, .bottom: return binding.action
            default: continue
            }
        }
        return nil
    }
}
