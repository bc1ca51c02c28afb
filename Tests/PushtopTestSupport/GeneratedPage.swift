import Foundation

/// A documentation page generated from the code (`docs/keys.md`, `docs/options.md`), compared with the committed
/// file by a test, or written in its place.
///
/// The tests that call it are the only generator: with `PUSHTOP_WRITE_DOCS=1` in the environment (what
/// `scripts/gen-docs` sets) the page is written and the comparison passes; otherwise a page that differs from
/// what the code generates is reported as stale, with the first line that differs.
public enum GeneratedPage {
    /// The repository's root: this file is `Tests/PushtopTestSupport/GeneratedPage.swift`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Whether the tests write the pages instead of comparing them (`PUSHTOP_WRITE_DOCS=1`).
    public static var writing: Bool { ProcessInfo.processInfo.environment["PUSHTOP_WRITE_DOCS"] == "1" }

    /// Compares `generated` with the committed page at `path` (relative to the root), or writes it when
    /// `writing`. Returns `nil` when they agree (or the page was written), else a message saying the page is
    /// stale, how to regenerate it, and the first difference.
    public static func check(_ path: String, generated: String) throws -> String? {
        let url = root.appendingPathComponent(path)
        if writing {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(generated.utf8).write(to: url)
            return nil
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return "\(path) is missing: run scripts/gen-docs"
        }
        let committed = String(decoding: data, as: UTF8.self)
        guard committed != generated else { return nil }
        return "\(path) is stale: run scripts/gen-docs (\(firstDifference(committed, generated)))"
    }

    /// Where two texts first differ, by line, for the failure message.
    static func firstDifference(_ committed: String, _ generated: String) -> String {
        let old = committed.split(separator: "\n", omittingEmptySubsequences: false)
        let new = generated.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(old.count, new.count) {
            let a = index < old.count ? String(old[index]) : "(end of file)"
            let b = index < new.count ? String(new[index]) : "(end of file)"
            if a != b { return "line \(index + 1): committed \"\(a)\", generated \"\(b)\"" }
        }
        return "they differ"
    }
}
