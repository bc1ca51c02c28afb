/// The dashboard's keys as a Markdown page (`docs/keys.md`), generated from the key table.
///
/// The table already drives dispatch, the hint bar and the `?` overlay; generating the page from it too (as
/// lazygit generates its keybindings page) means the documentation cannot drift from the keys. The page is
/// grouped as the overlay is: the panes' keys, then each debugger view's and the replay controls, under the
/// overlay's headings. `KeyReferenceTests` fails when the committed page differs from this output;
/// `scripts/gen-docs` rewrites it.
public enum KeyReference {
    /// The path of the page, relative to the repository's root.
    public static let path = "docs/keys.md"

    /// The whole page for `table`: a heading, then one table per section (key, hint bar label, what it does).
    public static func markdown(_ table: KeyTable = .standard) -> String {
        var out = """
            <!-- Generated from the dashboard's key table (Sources/PushtopDashboard/Keys/KeyTable.swift) by
                 KeyReference.markdown(). Do not edit: run scripts/gen-docs. -->
            # Dashboard keys

            [← the dashboard](dashboard.md) · [README](../README.md)

            Every key of the dashboard, from the key table that also drives the hint bar and the `?` overlay.
            "Hint" is the label the hint bar shows (blank: only in `?`). Keys of a view (the wire inspector, the auth
            inspector, the channel browser) apply while it is open and win over the panes' keys; the replay
            controls apply while replaying a recording.

            """
        for (title, bindings) in sections(table) {
            out += "\n## \(title)\n\n| key | hint | does |\n|---|---|---|\n"
            for binding in bindings {
                out += "| \(keys(binding.keys)) | \(cell(binding.hint)) | \(cell(description(binding))) |\n"
            }
        }
        return out
    }

    /// The table's bindings grouped by the overlay's headings, in table order of each heading's first binding.
    static func sections(_ table: KeyTable) -> [(title: String, bindings: [KeyBinding])] {
        var sections: [(title: String, bindings: [KeyBinding])] = []
        for binding in table.bindings {
            let title = HelpOverlayView.section(binding.scope).map { capitalized($0) } ?? "The panes"
            if let index = sections.firstIndex(where: { $0.title == title }) {
                sections[index].bindings.append(binding)
            } else {
                sections.append((title, [binding]))
            }
        }
        return sections
    }

    /// A binding's help text, with the pane it is limited to.
    static func description(_ binding: KeyBinding) -> String {
        guard case .pane(let pane) = binding.scope else { return binding.help }
        return "\(binding.help) (in the \(pane.title) pane)"
    }

    /// Keys as written on the page: each in backticks, modifiers spelled out (`Ctrl-S`, `Shift-Tab`).
    static func keys(_ keys: [Key]) -> String {
        keys.map { key -> String in
            switch key {
            case .ctrl(let c): return "`Ctrl-\(String(c).uppercased())`"
            case .backTab: return "`Shift-Tab`"
            default: return "`\(key.description)`"
            }
        }.joined(separator: ", ")
    }

    /// Text made safe for a table cell (a `|` would end the cell).
    static func cell(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }

    static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
