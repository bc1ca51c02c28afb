import PushtopKit

/// Reads theme files.
///
/// A theme is a TOML file:
///
/// ```toml
/// name = "default"
/// description = "the terminal's own background and its 16 ANSI colours"
/// color = true            # false: attributes only (monochrome)
///
/// [roles]
/// border = "bright-black"
/// "border.focus" = "cyan bold"
/// selection = "reverse"
/// "event.name" = "214/yellow"      # 256-colour index 214, or yellow on a 16-colour terminal
/// "hint.key" = "black on cyan bold"
/// ```
///
/// A style is words separated by spaces: a foreground colour, `on` and a background colour, and any of
/// `bold`, `dim`, `underline`, `reverse`. A colour is `default`, one of `black red green yellow blue magenta
/// cyan white` (with `bright-` in front for the bright eight), a number 0-255, or `N/NAME` (a 256-colour
/// index with a 16-colour fallback). Nested tables (`[roles.state]` then `connected = "green"`) are the
/// same as dotted keys.

public enum ThemeParser {
    static let colorNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    /// Parses a theme file's text. `source` names the file in error messages.
    public static func parse(_ text: String, source: String) throws(ThemeError) -> Theme {
        let root = try TOMLDocument.parse(text) { ThemeError(source: source, message: $0) }
        guard let entries = root.tableEntries else { throw ThemeError(source: source, message: "empty file") }
        var name: String?
        var description = ""
        var usesColor = true
        var styles: [Role: ThemeStyle] = [:]
        for (key, value) in entries {
            switch key {
            case "name":
                guard case .string(let s) = value, !s.isEmpty else {
                    throw ThemeError(
                        source: source, message: "'name' must be a non-empty string, found \(value.typeName)")
                }
                name = s
            case "description":
                guard case .string(let s) = value else {
                    throw ThemeError(source: source, message: "'description' must be a string, found \(value.typeName)")
                }
                description = s
            case "color":
                guard case .bool(let b) = value else {
                    throw ThemeError(source: source, message: "'color' must be true or false, found \(value.typeName)")
                }
                usesColor = b
            case "roles":
                guard value.tableEntries != nil else {
                    throw ThemeError(
                        source: source, message: "'roles' must be a table ([roles]), found \(value.typeName)")
                }
                try collectRoles(value, prefix: "", into: &styles, source: source)
            default:
                throw ThemeError(
                    source: source,
                    message: "unknown key '\(key)' (expected name, description, color and a [roles] table)")
            }
        }
        guard let name else { throw ThemeError(source: source, message: "missing 'name'") }
        guard !styles.isEmpty else {
            throw ThemeError(source: source, message: "the [roles] table is missing or empty")
        }
        if !usesColor {
            for (role, style) in styles {
                styles[role] = ThemeStyle(
                    bold: style.bold, dim: style.dim, underline: style.underline,
                    reverse: style.reverse)
            }
        }
        return Theme(name: name, description: description, usesColor: usesColor, styles: styles)
    }

    private static func collectRoles(
        _ node: TOMLNode, prefix: String, into styles: inout [Role: ThemeStyle],
        source: String
    ) throws(ThemeError) {
        for (key, value) in node.tableEntries ?? [] {
            let full = prefix.isEmpty ? key : prefix + "." + key
            if value.tableEntries != nil {
                try collectRoles(value, prefix: full, into: &styles, source: source)
                continue
            }
            guard let role = Role(rawValue: full) else {
                throw ThemeError(
                    source: source,
                    message: "unknown role '\(full)' (known roles: "
                        + Role.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            guard case .string(let spec) = value else {
                throw ThemeError(
                    source: source,
                    message: "role '\(full)' must be a string such as \"cyan bold\", found \(value.typeName)")
            }
            do {
                styles[role] = try parseStyle(spec)
            } catch {
                throw ThemeError(source: source, message: "role '\(full)': \(error.message)")
            }
        }
    }

    struct StyleError: Error {
        var message: String
    }

    /// Parses a style such as `"black on cyan bold"`.
    static func parseStyle(_ spec: String) throws(StyleError) -> ThemeStyle {
        var style = ThemeStyle()
        var sawForeground = false
        var expectBackground = false
        for word in spec.split(separator: " ").map(String.init) {
            switch word {
            case "bold": style.bold = true
            case "dim": style.dim = true
            case "underline": style.underline = true
            case "reverse": style.reverse = true
            case "on": expectBackground = true
            default:
                guard let color = parseColor(word) else {
                    throw StyleError(
                        message: "'\(word)' is not a colour or attribute (colours: default, "
                            + colorNames.joined(separator: ", ")
                            + ", bright-NAME, 0-255, N/NAME; attributes: bold, dim, underline, reverse)")
                }
                if expectBackground {
                    style.background = color
                    expectBackground = false
                } else if sawForeground {
                    throw StyleError(
                        message: "two foreground colours in \"\(spec)\" (use 'on COLOUR' for the background)")
                } else {
                    style.foreground = color
                    sawForeground = true
                }
            }
        }
        if expectBackground { throw StyleError(message: "'on' needs a colour after it in \"\(spec)\"") }
        return style
    }

    static func parseColor(_ word: String) -> ThemeColor? {
        if word == "default" { return .terminalDefault }
        if let slash = word.firstIndex(of: "/") {
            guard let n = Int(word[..<slash]), (0...255).contains(n),
                case .ansi(let fallback)? = parseColor(String(word[word.index(after: slash)...]))
            else { return nil }
            return .indexed(n, fallback: fallback)
        }
        if let n = Int(word) {
            guard (0...255).contains(n) else { return nil }
            return n < 16 ? .ansi(n) : .indexed(n, fallback: nil)
        }
        if let i = colorNames.firstIndex(of: word) { return .ansi(i) }
        if word.hasPrefix("bright-"), let i = colorNames.firstIndex(of: String(word.dropFirst(7))) {
            return .ansi(i + 8)
        }
        if word == "gray" || word == "grey" { return .ansi(8) }
        return nil
    }
}
