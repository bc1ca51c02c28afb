/// One row of a list drawn as columns from left to right (the event log, the console, the wire inspector): a
/// one-column margin on each side, each column truncated to its width with a one-column gap after it, and the whole
/// row in the selection's role when it is the selected one.
struct ColumnRow {
    /// The canvas row it is drawn on.
    let row: Int
    /// Whether every column is drawn in the selection's role.
    let selected: Bool
    /// Where the next column starts.
    private(set) var column: Int
    /// The column the row stops before (the right margin).
    let end: Int

    /// Row `row` of the list in `list` (its rows' rectangle); a selected row is filled in the selection's role.
    init(row: Int, in list: Rect, selected: Bool, canvas: inout some Canvas) {
        self.row = row
        self.selected = selected
        column = list.column + 1
        end = list.right - 1
        if selected { canvas.fill(Rect(row: row, column: list.column, height: 1, width: list.width), role: .selection) }
    }

    /// The columns left before the right margin.
    var remaining: Int { end - column }

    /// Draws the next column, `width` wide at most (less where the row ends); `last` leaves out the gap after it.
    mutating func put(_ text: String, _ width: Int, _ role: Role, last: Bool = false, into canvas: inout some Canvas) {
        guard width > 0, column < end else { return }
        let maxWidth = min(width, end - column)
        canvas.draw(
            DisplayWidth.truncate(text, to: last ? maxWidth : maxWidth - 1), row: row, column: column,
            maxWidth: maxWidth, role: selected ? .selection : role)
        column += maxWidth
    }
}
