import PushtopTestSupport
import Testing

@testable import PushtopDashboard

/// `docs/keys.md` is generated from the key table: the committed page is what `KeyReference.markdown()` gives,
/// and every binding of the table is on it.
struct KeyReferenceTests {
    @Test func theCommittedPageIsWhatTheKeyTableGenerates() throws {
        let stale = try GeneratedPage.check(KeyReference.path, generated: KeyReference.markdown())
        #expect(stale == nil, "\(stale ?? "")")
    }

    @Test func everyBindingHasARowUnderItsSection() {
        let page = KeyReference.markdown()
        for binding in KeyTable.standard.bindings {
            let row =
                "| \(KeyReference.keys(binding.keys)) | \(KeyReference.cell(binding.hint)) | "
                + "\(KeyReference.cell(KeyReference.description(binding))) |"
            #expect(page.contains(row), "no row for \(binding.keyLabel): \(binding.help)")
        }
        #expect(page.contains("## The panes"))
        #expect(page.contains("## Wire inspector (w)"))
        #expect(page.contains("## Replay (pushtop replay FILE)"))
    }

    @Test func keysAreSpelledOutAndCellsEscaped() {
        #expect(KeyReference.keys([.ctrl("s"), .backTab, .char(" "), .up]) == "`Ctrl-S`, `Shift-Tab`, `Space`, `↑`")
        #expect(KeyReference.cell("a | b") == "a \\| b")
        let logOnly = KeyBinding([.enter], hint: "detail", help: "open", action: .open, scope: .pane(.log))
        #expect(KeyReference.description(logOnly) == "open (in the Event log pane)")
    }
}
