import PushtopDashboard
import Testing

@Suite struct DisplayWidthTests {
    @Test func asciiIsOneColumnPerCharacter() {
        #expect(DisplayWidth.of("hello") == 5)
    }

    @Test func cjkTakesTwoColumns() {
        #expect(DisplayWidth.of("東京") == 4)
        #expect(DisplayWidth.of("李小龙") == 6)
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("ＡＢ") == 4)  // fullwidth forms
    }

    @Test func emojiTakesTwoColumns() {
        #expect(DisplayWidth.of("🚀") == 2)
        #expect(DisplayWidth.of("👋x") == 3)
    }

    @Test func combiningMarksTakeNoColumn() {
        #expect(DisplayWidth.of("e\u{0301}") == 1)
        #expect(DisplayWidth.of("Zoe\u{0308}") == 3)
        #expect(DisplayWidth.of("a\u{200B}b") == 2)  // zero-width space
    }

    @Test func clipNeverSplitsAWideCharacter() {
        let (text, width) = DisplayWidth.clip("ab東京", to: 5)
        #expect(text == "ab東")
        #expect(width == 4)
        #expect(DisplayWidth.clip("🚀🚀🚀", to: 3).text == "🚀")
    }

    @Test func clipKeepsCombiningMarksWithTheirBase() {
        let (text, width) = DisplayWidth.clip("e\u{0301}e\u{0301}x", to: 2)
        #expect(text == "e\u{0301}e\u{0301}")
        #expect(width == 2)
    }

    @Test func controlCharactersAreReplacedSoALineStaysOneLine() {
        #expect(DisplayWidth.sanitized("a\nb\tc") == "a b c")
        #expect(DisplayWidth.sanitized("x\u{1B}[31m") == "x\u{FFFD}[31m")
        #expect(DisplayWidth.clip("a\nb", to: 10).text == "a b")
    }

    @Test func truncateAddsAnEllipsisInTheLastColumn() {
        #expect(DisplayWidth.truncate("abcdef", to: 4) == "abc…")
        #expect(DisplayWidth.truncate("東京都庁", to: 5) == "東京…")
        #expect(DisplayWidth.truncate("abc", to: 4) == "abc")
    }

    @Test func padFillsToExactWidth() {
        #expect(DisplayWidth.pad("東", to: 4) == "東  ")
        #expect(DisplayWidth.pad("東京東京", to: 5) == "東京 ")  // the third wide char does not fit in the last column
    }
}

@Suite struct GridCanvasTests {
    @Test func wideCharactersOccupyTwoCellsAndTextReadsBack() {
        var canvas = GridCanvas(size: Size(rows: 1, columns: 8))
        let used = canvas.draw("a東京b", row: 0, column: 0, maxWidth: 8, role: .text)
        #expect(used == 6)
        #expect(canvas.text == "a東京b")
    }

    @Test func drawingIsClippedToMaxWidthAndTheEdge() {
        var canvas = GridCanvas(size: Size(rows: 2, columns: 6))
        canvas.draw("abcdefgh", row: 0, column: 2, maxWidth: 10, role: .text)
        canvas.draw("🚀🚀🚀", row: 1, column: 0, maxWidth: 5, role: .text)
        #expect(canvas.text == "  abcd\n🚀🚀")
    }

    @Test func rolesAreRecordedPerCell() {
        var canvas = GridCanvas(size: Size(rows: 1, columns: 4))
        canvas.draw("ok", row: 0, column: 1, maxWidth: 2, role: .stateConnected)
        #expect(canvas.role(row: 0, column: 0) == .text)
        #expect(canvas.role(row: 0, column: 1) == .stateConnected)
        #expect(canvas.role(row: 0, column: 2) == .stateConnected)
    }

    @Test func boxDrawsBorderAndTitleFocusedOrNot() {
        var canvas = GridCanvas(size: Size(rows: 3, columns: 12))
        canvas.box(Rect(row: 0, column: 0, height: 3, width: 12), title: "Pane", focused: false)
        #expect(canvas.text == "┌ Pane ────┐\n│          │\n└──────────┘")
        canvas.box(Rect(row: 0, column: 0, height: 3, width: 12), title: "Pane", focused: true)
        #expect(canvas.line(0) == "┏ Pane ━━━━┓")
        #expect(canvas.role(row: 0, column: 0) == .borderFocus)
    }
}
