/// A terminal size in rows and columns.
public struct Size: Sendable, Hashable, CustomStringConvertible {
    public var rows: Int
    public var columns: Int

    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }

    public var description: String { "\(columns)x\(rows)" }
}

/// A rectangle of cells: `row`/`column` of the top-left corner, then height and width.
public struct Rect: Sendable, Hashable, CustomStringConvertible {
    public var row: Int
    public var column: Int
    public var height: Int
    public var width: Int

    public init(row: Int, column: Int, height: Int, width: Int) {
        self.row = row
        self.column = column
        self.height = max(0, height)
        self.width = max(0, width)
    }

    public var bottom: Int { row + height }
    public var right: Int { column + width }
    public var isEmpty: Bool { height == 0 || width == 0 }

    /// The rectangle shrunk by `n` cells on every side (the inside of a border).
    public func inset(by n: Int) -> Rect {
        Rect(row: row + n, column: column + n, height: height - 2 * n, width: width - 2 * n)
    }

    public func contains(row r: Int, column c: Int) -> Bool {
        r >= row && r < bottom && c >= column && c < right
    }

    public var description: String { "\(width)x\(height)@\(column),\(row)" }
}
