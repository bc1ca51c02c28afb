import PushtopConfig
import PushtopKit
import Testing

@testable import PushtopCLI
@testable import PushtopDashboard

/// Inputs the fuzzers (`scripts/fuzz`) found wrong, kept so that they stay fixed. Each is also a corpus entry
/// under `Fuzz/corpus/`.
@Suite struct DashboardFuzzRegressionTests {
    /// fuzz-config, fuzz-theme: a table header whose name starts with anything but a bare-key character or a quote,
    /// or a bracket closing the wrong thing (`[1, }`), aborted the process inside toml++.
    static let headers = [
        "[é]\nkey = \"k\"\n", "[\u{FFFD}rofiles.staging]\n", "[ é]\n", "[[é]]\n", "[\u{2003}é]\n",
        "theme = \"x\"\n  [profiles]\n[ñ.a]\n", "[!]\n", "[\u{11}\u{FFFD}]=\nname x\" =\"\n", "[.a]\n",
        "[=]\n", "[#]\n", "[\t\u{1}a]\n", "[[!]]\n", "[{]\n", "a = 1 # [x]\n[$a]\n", "[\n",
        "\u{FEFF}[\u{E}", "\u{FEFF}[\u{FFFD}\u{FFFD}&", "a = 1\n\u{3000}[!]\n",
        "channels = [\"orders\",} \"p\"]\n", "a = [1, }\n", "a = { b = [1 }\n",
        "ma =1979-05-27T:0732:00Z\n", "d = 1979-05-27t\n", "ut = 1979-07-27tt\u{FFFD}Z::7300\n",
    ]

    @Test(arguments: headers)
    func configWithANonASCIITableNameIsAnError(_ text: String) {
        #expect(throws: ConfigError.self) { try ConfigFile.parse(text, path: "config.toml") }
    }

    @Test(arguments: headers)
    func themeWithANonASCIITableNameIsAnError(_ text: String) {
        #expect(throws: ThemeError.self) { try ThemeParser.parse(text, source: "t.toml") }
    }

    @Test func nonASCIIWhereTOMLAllowsItStillParses() throws {
        let text = "[\"é\"]\nname = \"café\"  # ü\n[a]\ntext = \"\"\"\n[é]\n\"\"\"\nlit = \'\'\'\n[!]\'\'\'\n"
        let root = try TOMLDocument.parse(text)
        #expect(Set(root.tableEntries?.map(\.0) ?? []) == ["é", "a"])
    }

    /// Lines of a multi-line array may start with `[`: they are values, not headers.
    @Test func nestedArraysAndInlineTablesOnTheirOwnLinesStillParse() throws {
        let text = "m = [\n  [ [1] ],\n  [+1, -2],\n  [{ a = 1 }],\n  [\"]\"],\n]\n[t]\nk = { x = [\n[!]\n] }\n"
        #expect(throws: TOMLDocument.SyntaxError.self) { try TOMLDocument.parse(text) }  // [!] is no value
        let valid = "m = [\n  [ [1] ],\n  [+1, -2],\n  [{ a = 1 }],\n  [\"]\"],\n]\n[t]\nk = 1\n"
        let root = try TOMLDocument.parse(valid)
        #expect(Set(root.tableEntries?.map(\.0) ?? []) == ["m", "t"])
    }

    @Test func datesAndTimesStillParse() throws {
        let root = try TOMLDocument.parse(
            "a = 1979-05-27T07:32:00Z\nb = 1979-05-27\nc = 07:32:00\nd = \"1979-05-27T\"\n2024-01-01to = 1\n")
        #expect(root.tableEntries?.count == 5)
    }

    @Test func theErrorNamesTheLine() {
        #expect {
            try TOMLDocument.parse("a = 1\n[é]\n")
        } throws: { error in
            (error as? TOMLDocument.SyntaxError)?.line == 2
        }
    }
}
