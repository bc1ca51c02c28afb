/// The bottom line: a prompt while one is open, else a status message, else the key hints of the
/// focused pane (from the key table).
public enum FooterView {
    public static func draw(_ state: DashboardState, in rect: Rect, into canvas: inout some Canvas) {
        canvas.fill(rect, role: .hintText)
        if let prompt = state.prompt {
            var col = rect.column
            col += canvas.draw(prompt.label + " ", row: rect.row, column: col, maxWidth: rect.width, role: .prompt)
            let errorText = prompt.error.map { "  ✗ " + $0 } ?? ""
            let errorW = min(DisplayWidth.of(errorText), max(0, rect.right - col - 12))
            let inputRoom = rect.right - col - errorW - 1
            // Show the end of long input.
            var input = prompt.text
            while DisplayWidth.of(input) > inputRoom - 1, !input.isEmpty { input.removeFirst() }
            col += canvas.draw(input, row: rect.row, column: col, maxWidth: inputRoom, role: .text)
            col += canvas.draw("▏", row: rect.row, column: col, maxWidth: 1, role: .prompt)
            if errorW > 0 {
                canvas.draw(errorText, row: rect.row, column: rect.right - errorW, maxWidth: errorW, role: .promptError)
            }
            return
        }
        if let status = state.status {
            canvas.draw(
                " " + status.text, row: rect.row, column: rect.column, maxWidth: rect.width,
                role: status.isError ? .statusError : .status)
            return
        }
        var col = rect.column
        let hints = state.configuration.keyTable.hints(
            focus: state.focus, view: state.view,
            replaying: state.replay != nil, severalApps: state.isMultiApp)
        func width(_ b: KeyBinding) -> Int { DisplayWidth.of(b.keys[0].description) + DisplayWidth.of(b.hint) + 4 }
        // `?` and `q` always show, at the end; the others fill the room before them in table order.
        let always = hints.filter { $0.action == .help || $0.action == .quit }
        let reserved = always.reduce(0) { $0 + width($1) }
        var shown: [KeyBinding] = []
        var used = 0
        for binding in hints where !always.contains(binding) {
            if used + width(binding) + reserved > rect.width { break }
            shown.append(binding)
            used += width(binding)
        }
        for binding in shown + always {
            col += canvas.draw(
                " " + binding.keys[0].description + " ", row: rect.row, column: col,
                maxWidth: rect.right - col, role: .hintKey)
            col += canvas.draw(
                " " + binding.hint + " ", row: rect.row, column: col, maxWidth: rect.right - col,
                role: .hintText)
        }
    }
}
