/// A colour as a theme names it: the terminal's default, one of the 16 ANSI colours, or a 256-colour index
/// with a 16-colour fallback for terminals that have no more.
public enum ThemeColor: Sendable, Hashable {
    case terminalDefault
    case ansi(Int)
    case indexed(Int, fallback: Int?)

    /// The colour number to use on a terminal with `colors` colours (`-1` is the terminal default).
    public func number(colors: Int) -> Int {
        switch self {
        case .terminalDefault: return -1
        case .ansi(let n): return n < colors ? n : (n >= 8 && colors >= 8 ? n - 8 : -1)
        case .indexed(let n, let fallback):
            if n < colors { return n }
            guard let fallback else { return -1 }
            return ThemeColor.ansi(fallback).number(colors: colors)
        }
    }
}

/// How one role looks: colours and attributes.
public struct ThemeStyle: Sendable, Hashable {
    public var foreground: ThemeColor = .terminalDefault
    public var background: ThemeColor = .terminalDefault
    public var bold = false
    public var dim = false
    public var underline = false
    public var reverse = false

    public init(
        foreground: ThemeColor = .terminalDefault, background: ThemeColor = .terminalDefault,
        bold: Bool = false, dim: Bool = false, underline: Bool = false, reverse: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.underline = underline
        self.reverse = reverse
    }

    public static let plain = ThemeStyle()
}

/// A named set of styles for the dashboard's roles.
///
/// Roles a theme leaves out inherit from a parent role (`state.connected` → `text`, `border.focus` →
/// `border`...) so a short theme file is enough.
public struct Theme: Sendable, Hashable {
    public var name: String
    public var description: String
    /// Whether the theme asks for colours at all (`false` for monochrome: attributes only).
    public var usesColor: Bool
    public private(set) var styles: [Role: ThemeStyle]

    public init(name: String, description: String = "", usesColor: Bool = true, styles: [Role: ThemeStyle]) {
        self.name = name
        self.description = description
        self.usesColor = usesColor
        self.styles = styles
    }

    /// The style of a role, falling back along the role's parents to plain text.
    public func style(for role: Role) -> ThemeStyle {
        var current: Role? = role
        while let r = current {
            if let s = styles[r] { return s }
            current = Theme.parent(of: r)
        }
        return .plain
    }

    /// The role a missing role inherits from.
    public static func parent(of role: Role) -> Role? {
        switch role {
        case .text: return nil
        case .borderFocus: return .border
        case .titleFocus: return .title
        case .eventError, .channelError, .promptError, .statusError: return .stateFailed
        case .memberJoin: return .stateConnected
        case .memberLeave: return .dim
        case .consoleError: return .eventError
        case .consoleGap: return .badge
        default: return .text
        }
    }
}
