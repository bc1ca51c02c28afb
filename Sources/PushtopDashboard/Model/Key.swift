/// A key press, decoded from the terminal.
public enum Key: Sendable, Hashable, CustomStringConvertible {
    case char(Character)
    /// Ctrl plus a letter, e.g. `.ctrl("s")` for Ctrl-S.
    case ctrl(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case tab, backTab, enter, escape, backspace, delete
    case function(Int)

    /// How the key is written in the hint bar and the help overlay.
    public var description: String {
        switch self {
        case .char(" "): return "Space"
        case .char(let c): return String(c)
        case .ctrl(let c): return "^" + String(c).uppercased()
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .home: return "Home"
        case .end: return "End"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .tab: return "Tab"
        case .backTab: return "S-Tab"
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .backspace: return "Bksp"
        case .delete: return "Del"
        case .function(let n): return "F\(n)"
        }
    }
}

/// A mouse action, already reduced to what the dashboard uses.
public enum MouseAction: Sendable, Hashable {
    case click(row: Int, column: Int)
    case wheelUp(row: Int, column: Int)
    case wheelDown(row: Int, column: Int)
}
