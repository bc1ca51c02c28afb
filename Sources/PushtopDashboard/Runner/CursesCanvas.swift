import CNcurses

/// The terminal as a ``Canvas``: the only code (with ``CursesScreen``) that calls ncurses.
///
/// - Important: use only on the main actor (ncurses is not thread-safe).
struct CursesCanvas: Canvas {
    let size: Size
    /// The attributes of each role, from ``CursesPalette``.
    let attributes: [attr_t]

    @discardableResult
    mutating func draw(_ text: String, row: Int, column: Int, maxWidth: Int, role: Role) -> Int {
        guard row >= 0, row < size.rows, column >= 0, column < size.columns else { return 0 }
        let (clipped, width) = DisplayWidth.clip(text, to: min(maxWidth, size.columns - column))
        guard width > 0 else { return 0 }
        wattrset(pt_stdscr(), Int32(bitPattern: UInt32(truncatingIfNeeded: attributes[CursesPalette.index(of: role)])))
        _ = mvwaddstr(pt_stdscr(), Int32(row), Int32(column), clipped)
        return width
    }

    mutating func fill(_ rect: Rect, role: Role) {
        let c0 = max(0, rect.column), c1 = min(size.columns, rect.right)
        let r0 = max(0, rect.row), r1 = min(size.rows, rect.bottom)
        guard c0 < c1, r0 < r1 else { return }
        let blank = String(repeating: " ", count: c1 - c0)
        wattrset(pt_stdscr(), Int32(bitPattern: UInt32(truncatingIfNeeded: attributes[CursesPalette.index(of: role)])))
        for r in r0..<r1 { _ = mvwaddstr(pt_stdscr(), Int32(r), Int32(c0), blank) }
    }
}

/// Turns a theme into curses attributes: one colour pair per role.
enum CursesPalette {
    static let roles = Role.allCases

    static func index(of role: Role) -> Int {
        indexTable[role] ?? 0
    }

    private static let indexTable: [Role: Int] = Dictionary(uniqueKeysWithValues: roles.enumerated().map { ($1, $0) })

    /// Defines colour pairs for `theme` and returns each role's attributes, indexed like ``roles``.
    /// - Parameter color: whether to use colours at all (the terminal has them and `NO_COLOR` is unset).
    static func apply(_ theme: Theme, color: Bool) -> [attr_t] {
        let colors = Int(pt_colors())
        let useColor = color && theme.usesColor && has_colors()
        return roles.enumerated().map { i, role in
            let style = theme.style(for: role)
            var attr = pt_a_normal()
            if style.bold { attr |= pt_a_bold() }
            if style.dim { attr |= pt_a_dim() }
            if style.underline { attr |= pt_a_underline() }
            if style.reverse { attr |= pt_a_reverse() }
            if useColor, i + 1 < Int(pt_color_pairs()) {
                let fg = style.foreground.number(colors: colors)
                let bg = style.background.number(colors: colors)
                init_pair(Int16(i + 1), Int16(fg), Int16(bg))
                attr |= pt_color_pair(Int32(i + 1))
            }
            return attr
        }
    }
}
