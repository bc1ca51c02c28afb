import PushtopKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds themes by name or path: `--theme PATH`, then the user's theme folder
/// (`$XDG_CONFIG_HOME/pushtop/themes/` or `~/.config/pushtop/themes/`), then the installed themes
/// (`PREFIX/share/pushtop/themes`), then the bundled themes.
///
/// A broken or missing theme never stops the dashboard: ``resolve(_:)`` returns the default theme and a
/// message saying what was wrong.
public struct ThemeCatalog: Sendable {
    /// The themes `T` cycles through: bundled ones, then valid ones from the user's folder.
    public private(set) var themes: [Theme]
    /// Problems met while loading the user's folder (shown once on screen).
    public private(set) var warnings: [String]
    /// The user's theme folder, if one could be determined.
    public let userFolder: String?

    /// Loads the bundled themes and the user's theme folder.
    /// - Parameter environment: the process environment (for `XDG_CONFIG_HOME` and `HOME`).
    public init(environment: [String: String]) {
        userFolder = ThemeCatalog.userFolder(environment: environment)
        themes = BundledThemes.files.map { file in
            // The bundled files are tested to parse; a failure here is a build mistake.
            (try? ThemeParser.parse(file.text, source: "bundled \(file.name).toml"))
                ?? Theme(name: file.name, styles: [.text: .plain])
        }
        warnings = []
        // Installed themes (scripts/install puts them in PREFIX/share/pushtop/themes), then the user's, which win.
        let folders = [ThemeCatalog.installedFolder(environment: environment), userFolder].compactMap { $0 }
        for folder in folders {
            for file in TextFile.list(folder: folder, suffix: ".toml") {
                let path = folder + "/" + file
                do {
                    let theme = try ThemeCatalog.load(path: path)
                    if let i = themes.firstIndex(where: { $0.name == theme.name }) {
                        themes[i] = theme
                    } else {
                        themes.append(theme)
                    }
                } catch {
                    warnings.append(error.description)
                }
            }
        }
    }

    /// The bundled default theme.
    public static var defaultTheme: Theme {
        (try? ThemeParser.parse(BundledThemes.files[0].text, source: "default.toml"))
            ?? Theme(name: "default", styles: [.text: .plain])
    }

    /// The theme to start with: `requested` (a name or a path) if given, else `mono` when `NO_COLOR` is
    /// set, else `default`. Falls back to the default theme with a message when `requested` is unusable.
    public func resolve(_ requested: String?, environment: [String: String] = [:]) -> (theme: Theme, warning: String?) {
        guard let requested, !requested.isEmpty else {
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty, let mono = theme(named: "mono") {
                return (mono, nil)
            }
            return (themes[0], nil)
        }
        if requested.contains("/") || requested.hasSuffix(".toml") {
            do {
                return (try ThemeCatalog.load(path: requested), nil)
            } catch {
                return (themes[0], "\(error.description); using the default theme")
            }
        }
        if let theme = theme(named: requested) { return (theme, nil) }
        return (
            themes[0],
            "theme '\(requested)' not found (available: "
                + themes.map(\.name).joined(separator: ", ") + "); using the default theme"
        )
    }

    /// A theme by name.
    public func theme(named name: String) -> Theme? {
        themes.first { $0.name == name }
    }

    /// Adds (or replaces) a theme, e.g. one loaded from `--theme PATH`, so `T` can come back to it.
    public mutating func include(_ theme: Theme) {
        if let i = themes.firstIndex(where: { $0.name == theme.name }) {
            themes[i] = theme
        } else {
            themes.append(theme)
        }
    }

    /// Reads and parses a theme file.
    public static func load(path: String) throws(ThemeError) -> Theme {
        guard let text = TextFile.read(path) else {
            throw ThemeError(source: path, message: "cannot read the file")
        }
        return try ThemeParser.parse(text, source: path)
    }

    /// The installed themes: `$PUSHTOP_SHARE_DIR/themes` (the `pushtop` binary sets it to `PREFIX/share/pushtop`
    /// when it runs from an installed `PREFIX/bin`).
    public static func installedFolder(environment: [String: String]) -> String? {
        guard let share = environment["PUSHTOP_SHARE_DIR"], !share.isEmpty else { return nil }
        return share + "/themes"
    }

    /// The user's theme folder: `$XDG_CONFIG_HOME/pushtop/themes` or `~/.config/pushtop/themes`.
    public static func userFolder(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/pushtop/themes" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/pushtop/themes" }
        return nil
    }
}
