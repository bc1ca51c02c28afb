import PusherProtocol
import Testing

@testable import PushtopDashboard

/// Hostile payloads draw cleanly: emoji sequences (ZWJ, VS16, flags, skin tones) and C1 controls keep every
/// border in its column at several widths, nothing is cut inside a grapheme, JSON keeps its key order, long
/// strings wrap.
struct PayloadDrawingTests {
    static let family = "👩\u{200D}👩\u{200D}👧\u{200D}👦"
    static let rainbow = "🏳\u{FE0F}\u{200D}🌈"
    static let payloads = [
        family, rainbow, "🇫🇷🇩🇪", "👍\u{1F3FD}", "❤\u{FE0F}", "1\u{FE0F}\u{20E3}", "a\u{9B}31mb", "x\u{85}y",
        "東京 e\u{301} مرحبا", family + family + "z",
    ]
    static var data: String {
        #"{"kind":"hostile","items":[\#(payloads.map { "\"\($0)\"" }.joined(separator: ","))],"family":"\#(family)","tail":"end"}"#
    }

    /// Every cell of the frame: no U+200D, no variation selector, no C0/C1 control reaches the terminal.
    func expectOnlyDrawableScalars(_ canvas: GridCanvas, sourceLocation: SourceLocation = #_sourceLocation) {
        for r in 0..<canvas.size.rows {
            for c in 0..<canvas.size.columns {
                guard let ch = canvas.character(row: r, column: c) else { continue }
                for s in ch.unicodeScalars {
                    let v = s.value
                    #expect(
                        !(v < 0x20 || (0x7F..<0xA0).contains(v) || v == 0x200D || v == 0xFE0F),
                        "U+\(String(v, radix: 16)) at \(r),\(c)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    func stateWithHostileEvent(columns: Int, rows: Int) -> DashboardState {
        var state = demoState(size: Size(rows: rows, columns: columns))
        _ = state.reduce(.client([event("chat", "message", Self.data)]))
        return state
    }

    @Test(arguments: [40, 80, 129])
    func sanitizedTextMeasuresAndClipsWholeGraphemes(columns: Int) {
        for payload in Self.payloads {
            let clean = DisplayWidth.sanitized(payload)
            #expect(
                !clean.unicodeScalars.contains {
                    $0.value == 0x200D || $0.value == 0xFE0F || (0x80..<0xA0).contains($0.value)
                })
            // Clipping at every width keeps whole grapheme clusters and measures what it keeps.
            let repeated = String(repeating: payload + " ", count: columns / 4 + 1)
            for width in [1, 2, 3, columns / 2, columns] {
                let (text, w) = DisplayWidth.clip(repeated, to: width)
                #expect(w <= width)
                #expect(DisplayWidth.of(text) == w)
                #expect(DisplayWidth.sanitized(repeated).hasPrefix(text))
                #expect(text.unicodeScalars.last?.value != 0x200D)
            }
        }
        #expect(DisplayWidth.sanitized(Self.family) == "👩👩👧👦")
        #expect(DisplayWidth.of(Self.family) == 8)
        #expect(DisplayWidth.sanitized(Self.rainbow) == "🏳🌈")
        #expect(DisplayWidth.sanitized("👍\u{1F3FD}") == "👍")
        #expect(DisplayWidth.of("🇫🇷") == 2)
        #expect(DisplayWidth.clip("🇫🇷🇩🇪", to: 3).text == "🇫🇷")  // a flag is never cut in half
        #expect(DisplayWidth.sanitized("a\u{9B}31m") == "a\u{FFFD}31m")  // C1 CSI shown like other controls
        #expect(DisplayWidth.sanitized("دعا\u{200D}ك") == "دعا\u{200D}ك")  // a joiner in a script stays
        #expect(DisplayWidth.clip("دعا\u{200D}ك", to: 3).text == "دعا")  // but never at the end of a cut
    }

    @Test(arguments: [(80, 24), (129, 42), (140, 42)])
    func theLogRowKeepsItsBorderWithEmojiSequences(columns: Int, rows: Int) {
        let state = stateWithHostileEvent(columns: columns, rows: rows)
        let grid = canvas(state)
        expectOnlyDrawableScalars(grid)
        let log = state.layout!.log
        let row = (log.row + 1..<log.bottom - 1).first { grid.line($0).contains("hostile") }
        #expect(row != nil, "\(grid.text)")
        for r in log.row..<log.bottom {
            #expect(
                grid.character(row: r, column: log.right - 1).map { "┃┓┛│┐┘".contains($0) } == true,
                "row \(r): \(grid.line(r))")
        }
        // Keys in the order they came.
        #expect(grid.text.contains(columns >= 129 ? #"{"kind":"hostile","items":["# : #"{"kind":"hostile"#))
    }

    @Test(arguments: [(40, 24), (80, 24), (129, 42)])
    func theDetailBoxKeepsItsRightBorderAndLeavesNoStrayCells(columns: Int, rows: Int) {
        var state = stateWithHostileEvent(columns: max(columns, 60), rows: rows)
        _ = state.reduce(.resize(Size(rows: rows, columns: columns)))
        state.press(.char("4"), .enter)
        let grid = canvas(state)
        expectOnlyDrawableScalars(grid)
        guard columns >= 60 else {
            #expect(grid.text.contains("too small"))
            return
        }
        let rect = DetailOverlayView.rect(state.size)
        for r in rect.row..<rect.bottom {
            #expect(
                grid.character(row: r, column: rect.right - 1).map { "┃┓┛".contains($0) } == true,
                "row \(r): \(grid.line(r))")
        }
        // The received key order in the detail view too.
        let text = grid.text
        let kind = text.range(of: #""kind": "hostile""#), items = text.range(of: #""items": ["#)
        #expect(kind != nil && items != nil && kind!.lowerBound < items!.lowerBound, "\(text)")
        // Closing the popup leaves the panes exactly as they were drawn without it.
        state.press(.escape)
        #expect(canvas(state).text == canvas(stateWithHostileEvent(columns: columns, rows: rows).focusingLog()).text)
    }

    @Test func aC1ControlIsShownAsAReplacementCharacterNeverPassedOn() {
        var state = demoState()
        _ = state.reduce(.client([event("chat", "message", "before\u{9B}31mafter")]))
        let grid = canvas(state)
        expectOnlyDrawableScalars(grid)
        #expect(grid.text.contains("before\u{FFFD}31mafter"))
    }

    @Test(arguments: [80, 129])
    func longStringValuesWrapInTheDetailView(columns: Int) {
        var state = demoState(size: Size(rows: 42, columns: columns))
        let long = (0..<40).map { "word\($0)" }.joined(separator: "-") + "-THE-END"
        _ = state.reduce(.client([event("chat", "message", #"{"id":1,"text":"\#(long)","after":true}"#)]))
        state.press(.char("4"), .enter)
        let text = frame(state)
        // Every part of the long value is on screen, and the key after it too.
        #expect(text.contains("THE-END"), "\(text)")
        #expect(text.contains("word20"))
        #expect(text.contains(#""after": true"#))
    }

    @Test func jsonKeepsTheReceivedKeyOrder() {
        #expect(
            JSONText.compact(#"{ "z": 1, "a": [ {"y":2, "b": null} ], "m": "\u6771" }"#)
                == #"{"z":1,"a":[{"y":2,"b":null}],"m":"東"}"#)
        #expect(
            JSONText.prettyLines(#"{"kind":"k","items":[1,{}],"e":[]}"#)
                == ["{", #"  "kind": "k","#, #"  "items": ["#, "    1,", "    {}", "  ],", #"  "e": []"#, "}"])
        #expect(JSONText.compact("not json") == nil)
        let entry = LogEntry(
            seq: 0, time: 0, kind: .event, channel: "c", event: "e", dataText: #"{"kind":1,"items":2}"#)
        #expect(entry.summary == #"{"kind":1,"items":2}"#)
    }

    @Test func ctrlLAsksForAFullRepaint() {
        var state = demoState()
        #expect(state.press(.ctrl("l")) == [.redraw])
    }
}

extension DashboardState {
    /// The state after focusing the log (as the detail test did before opening the popup).
    fileprivate func focusingLog() -> DashboardState {
        var copy = self
        copy.press(.char("4"))
        return copy
    }
}
