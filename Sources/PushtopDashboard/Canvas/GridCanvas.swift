/// A canvas in memory: the cells a frame would show, for tests and measurements.
///
/// ``text`` gives the frame as lines (wide characters once, their second column omitted), and
/// ``role(row:column:)`` the role each cell was drawn with.
public struct GridCanvas: Canvas, Sendable {
    public private(set) var size: Size
    private var cells: [Character]
    private var roles: [Role]
    /// Marks the second column of a wide character.
    private static let continuation: Character = "\u{0}"

    public init(size: Size) {
        self.size = size
        cells = Array(repeating: " ", count: max(0, size.rows * size.columns))
        roles = Array(repeating: .text, count: max(0, size.rows * size.columns))
    }

    @discardableResult
    public mutating func draw(_ text: String, row: Int, column: Int, maxWidth: Int, role: Role) -> Int {
        guard row >= 0, row < size.rows, column >= 0, column < size.columns else { return 0 }
        let limit = min(maxWidth, size.columns - column)
        guard limit > 0 else { return 0 }
        let base = row * size.columns
        var col = column
        var lastCell = -1
        // Whole grapheme clusters, as the terminal gets them (``DisplayWidth/sanitized(_:)``).
        for character in DisplayWidth.sanitized(text) {
            let w = DisplayWidth.of(character)
            if w == 0 {
                if lastCell >= 0 {
                    var s = String(cells[lastCell])
                    s.unicodeScalars.append(contentsOf: character.unicodeScalars)
                    cells[lastCell] = Character(s)
                }
                continue
            }
            if col - column + w > limit { break }
            // Overwriting half of a wide character leaves its other half blank, as a terminal does.
            if cells[base + col] == Self.continuation, col > 0 { cells[base + col - 1] = " " }
            if col + w < size.columns, cells[base + col + w] == Self.continuation { cells[base + col + w] = " " }
            cells[base + col] = character
            roles[base + col] = role
            lastCell = base + col
            for extra in 1..<max(1, w) {
                cells[base + col + extra] = Self.continuation
                roles[base + col + extra] = role
            }
            col += w
        }
        return col - column
    }

    public mutating func fill(_ rect: Rect, role: Role) {
        let r0 = max(0, rect.row), r1 = min(size.rows, rect.bottom)
        let c0 = max(0, rect.column), c1 = min(size.columns, rect.right)
        guard r0 < r1, c0 < c1 else { return }
        for r in r0..<r1 {
            // A wide character cut by the rectangle's edge loses its other half too.
            if c0 > 0, cells[r * size.columns + c0] == Self.continuation { cells[r * size.columns + c0 - 1] = " " }
            if c1 < size.columns, cells[r * size.columns + c1] == Self.continuation {
                cells[r * size.columns + c1] = " "
            }
            for c in c0..<c1 {
                cells[r * size.columns + c] = " "
                roles[r * size.columns + c] = role
            }
        }
    }

    /// Resets every cell to a space in ``Role/text``.
    public mutating func clear() {
        for i in cells.indices {
            cells[i] = " "
            roles[i] = .text
        }
    }

    /// One row as text (trailing spaces kept).
    public func line(_ row: Int) -> String {
        var out = ""
        for c in 0..<size.columns {
            let ch = cells[row * size.columns + c]
            if ch != Self.continuation { out.append(ch) }
        }
        return out
    }

    /// The whole frame, rows joined by newlines, trailing spaces trimmed.
    public var text: String {
        (0..<size.rows).map { line($0).trimmingTrailingSpaces() }.joined(separator: "\n")
    }

    /// The character a cell shows, `nil` for the second column of a wide character.
    public func character(row: Int, column: Int) -> Character? {
        let ch = cells[row * size.columns + column]
        return ch == Self.continuation ? nil : ch
    }

    /// The role a cell was last drawn with.
    public func role(row: Int, column: Int) -> Role {
        roles[row * size.columns + column]
    }

    /// Whether a string occurs anywhere in the frame.
    public func contains(_ s: String) -> Bool {
        (0..<size.rows).contains { line($0).contains(s) }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
