/// Where views draw: a grid of cells, each with a character and a theme role.
///
/// Views only know this protocol. ``GridCanvas`` records cells for tests and measurements; the curses
/// canvas (the only code that imports ncurses) writes to the terminal.
public protocol Canvas {
    /// The drawable size.
    var size: Size { get }

    /// Draws one line of text at `row`, `column`, clipped to `maxWidth` columns and to the canvas.
    /// - Returns: the number of columns written.
    @discardableResult
    mutating func draw(_ text: String, row: Int, column: Int, maxWidth: Int, role: Role) -> Int

    /// Fills a rectangle with spaces in `role`.
    mutating func fill(_ rect: Rect, role: Role)
}

extension Canvas {
    /// Draws text clipped only to the canvas edge.
    @discardableResult
    public mutating func draw(_ text: String, row: Int, column: Int, role: Role) -> Int {
        draw(text, row: row, column: column, maxWidth: size.columns - column, role: role)
    }

    /// Draws a border around `rect` with a title on the top edge; `focused` changes the border's role.
    public mutating func box(_ rect: Rect, title: String, focused: Bool, badge: String = "") {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let role: Role = focused ? .borderFocus : .border
        let horizontal = String(repeating: focused ? "━" : "─", count: rect.width - 2)
        let (tl, tr, bl, br, v) = focused ? ("┏", "┓", "┗", "┛", "┃") : ("┌", "┐", "└", "┘", "│")
        draw(tl + horizontal + tr, row: rect.row, column: rect.column, maxWidth: rect.width, role: role)
        for r in (rect.row + 1)..<(rect.bottom - 1) {
            draw(v, row: r, column: rect.column, maxWidth: 1, role: role)
            draw(v, row: r, column: rect.right - 1, maxWidth: 1, role: role)
        }
        draw(bl + horizontal + br, row: rect.bottom - 1, column: rect.column, maxWidth: rect.width, role: role)
        let room = rect.width - 4
        guard room > 0 else { return }
        let used = draw(
            " \(title) ", row: rect.row, column: rect.column + 1, maxWidth: room,
            role: focused ? .titleFocus : .title)
        if !badge.isEmpty, room - used > 3 {
            let text = " \(badge) "
            let w = min(DisplayWidth.of(text), room - used - 1)
            draw(text, row: rect.row, column: rect.right - 2 - w, maxWidth: w, role: .badge)
        }
    }

    /// Draws text padded with spaces to exactly `width` columns (a full row of a list, e.g. the selection).
    @discardableResult
    public mutating func drawPadded(_ text: String, row: Int, column: Int, width: Int, role: Role) -> Int {
        guard width > 0 else { return 0 }
        let used = draw(text, row: row, column: column, maxWidth: width, role: role)
        if used < width {
            fill(Rect(row: row, column: column + used, height: 1, width: width - used), role: role)
        }
        return width
    }
}

/// A box title's badge in the longest form that fits: views shorten, never cut.
public enum BoxBadge {
    /// The first of `variants` (longest first) that ``Canvas/box(_:title:focused:badge:)`` shows whole beside
    /// `title` in a box `width` wide, else the last one.
    public static func fitting(_ variants: [String], title: String, width: Int) -> String {
        let room = width - 4
        let available = room - min(room, DisplayWidth.of(" \(title) ")) - 3
        return variants.first { DisplayWidth.of($0) <= available } ?? variants.last ?? ""
    }
}
