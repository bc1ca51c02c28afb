import Foundation

/// What this binary was built from.
///
/// `scripts/install` writes the commit of the checkout it installs from into `PREFIX/share/pushtop/commit`
/// (`scripts/build-stamp`), and the installed binary reads it from there. Nothing about the commit goes into the
/// compilation, so the installed binary is the very release build `./scripts/run` makes (no define, no generated
/// source, nothing rebuilt). Any binary without that file beside it says "unknown".
enum BuildInfo {
    /// The git commit (`git rev-parse --short HEAD`, with `-dirty` for uncommitted changes), or "unknown".
    static let commit: String = {
        guard let share = InstallLayout.shareDirectory,
            let text = try? String(contentsOfFile: share + "/commit", encoding: .utf8)
        else { return "unknown" }
        return stamp(text) ?? "unknown"
    }()

    /// The commit a stamp file names: its first line, if it looks like one (hex digits, `-dirty`, or "unknown").
    static func stamp(_ text: String) -> String? {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let allowed = Set("0123456789abcdef-dirtyunknown")
        guard !line.isEmpty, line.count <= 64, line.allSatisfy({ allowed.contains($0) }) else { return nil }
        return line
    }
}
