import Testing
@testable import PushtopDashboard

/// Inputs the fuzzers (`scripts/fuzz`) found wrong, kept so that they stay fixed. Each is also a corpus entry
/// under `Fuzz/corpus/`.
@Suite struct DashboardFuzzRegressionTests {
    /// fuzz-config: a table header starting with a non-ASCII character aborted the process inside toml++.
    static let headers = ["[é]\nkey = \"k\"\n", "[\u{FFFD}rofiles.staging]\n", "[ é]\n", "[[é]]\n", "[\u{2003}é]\n",
                          "theme = \"x\"\n  [profiles]\n[ñ.a]\n"]

    @Test(arguments: headers)
    func configWithANonASCIITableNameIsAnError(_ text: String) {
        #expect(throws: ConfigError.self) { try ConfigFile.parse(text, path: "config.toml") }
    }

    @Test(arguments: headers)
    func themeWithANonASCIITableNameIsAnError(_ text: String) {
        #expect(throws: ThemeError.self) { try ThemeParser.parse(text, source: "t.toml") }
    }

    @Test func nonASCIIWhereTOMLAllowsItStillParses() throws {
        let text = "[\"é\"]\nname = \"café\"  # ü\n[a]\ntext = \"\"\"\n[é]\n\"\"\"\n"
        let root = try TOMLDocument.parse(text)
        #expect(Set(root.tableEntries?.map(\.0) ?? []) == ["é", "a"])
    }

    @Test func theErrorNamesTheLine() {
        #expect {
            try TOMLDocument.parse("a = 1\n[é]\n")
        } throws: { error in
            (error as? TOMLDocument.SyntaxError)?.line == 2
        }
    }
}
