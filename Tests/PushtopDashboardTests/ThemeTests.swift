import PushtopDashboard
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ThemeParserTests {
    @Test func parsesRolesColoursAndAttributes() throws {
        let theme = try ThemeParser.parse(
            """
            name = "t"
            description = "test"
            [roles]
            border = "bright-black"
            "border.focus" = "cyan bold"
            "hint.key" = "black on cyan"
            "event.name" = "214/yellow underline"
            [roles.state]
            connected = "green reverse dim"
            """, source: "t.toml")
        #expect(theme.name == "t")
        #expect(theme.style(for: .border).foreground == .ansi(8))
        #expect(theme.style(for: .borderFocus) == ThemeStyle(foreground: .ansi(6), bold: true))
        #expect(theme.style(for: .hintKey) == ThemeStyle(foreground: .ansi(0), background: .ansi(6)))
        #expect(theme.style(for: .eventName) == ThemeStyle(foreground: .indexed(214, fallback: 3), underline: true))
        #expect(theme.style(for: .stateConnected) == ThemeStyle(foreground: .ansi(2), dim: true, reverse: true))
    }

    @Test func missingRolesInheritFromTheirParent() throws {
        let theme = try ThemeParser.parse("name = \"t\"\n[roles]\ntext = \"white\"\nborder = \"red\"\n", source: "t")
        #expect(theme.style(for: .borderFocus).foreground == .ansi(1))  // border.focus → border
        #expect(theme.style(for: .eventName).foreground == .ansi(7))  // → text
    }

    @Test func colourNumbersDependOnTheTerminal() {
        #expect(ThemeColor.indexed(214, fallback: 3).number(colors: 256) == 214)
        #expect(ThemeColor.indexed(214, fallback: 3).number(colors: 16) == 3)
        #expect(ThemeColor.indexed(214, fallback: nil).number(colors: 8) == -1)
        #expect(ThemeColor.ansi(9).number(colors: 8) == 1)  // bright red on an 8-colour terminal
        #expect(ThemeColor.terminalDefault.number(colors: 256) == -1)
    }

    @Test func monochromeDropsColoursButKeepsAttributes() throws {
        let theme = try ThemeParser.parse("name = \"m\"\ncolor = false\n[roles]\nborder = \"red bold\"\n", source: "m")
        #expect(theme.style(for: .border) == ThemeStyle(bold: true))
        #expect(!theme.usesColor)
    }

    /// Each broken file gives a message that names the file and the problem.
    @Test(arguments: [
        ("syntax-error.toml", "not valid TOML: line"),
        ("unknown-role.toml", "unknown role 'state.conected'"),
        ("unknown-colour.toml", "role 'border': 'gren' is not a colour or attribute"),
        ("role-not-string.toml", "role 'border' must be a string such as \"cyan bold\", found an integer"),
        ("missing-name.toml", "missing 'name'"),
        ("no-roles.toml", "the [roles] table is missing or empty"),
        ("two-foregrounds.toml", "two foreground colours"),
        ("dangling-on.toml", "'on' needs a colour after it"),
        ("colour-out-of-range.toml", "'300' is not a colour or attribute"),
        ("unknown-key.toml", "unknown key 'colour'"),
        ("name-not-string.toml", "'name' must be a non-empty string, found an integer"),
        ("empty.toml", "missing 'name'"),
        ("roles-not-table.toml", "'roles' must be a table ([roles]), found a string"),
        ("bad-indexed.toml", "'999/red' is not a colour or attribute"),
    ])
    func brokenThemeFilesGiveClearMessages(file: String, expected: String) {
        let path = corpusFolder + "/" + file
        do {
            _ = try ThemeCatalog.load(path: path)
            Issue.record("\(file) was accepted")
        } catch {
            #expect(error.description.hasPrefix("theme \(path): "))
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test func theCorpusIsFullyChecked() {
        #expect(brokenThemeCorpus.count == 14)
    }
}

/// The broken theme corpus, written once to a temporary folder.
let corpusFolder: String = {
    let folder = makeTemporaryFolder()
    for item in brokenThemeCorpus { writeText(folder + "/" + item.file, item.text) }
    return folder
}()

@Suite struct ThemeCatalogTests {
    @Test func bundledThemesAllParseAndIncludeTheRequiredOnes() throws {
        for file in BundledThemes.files {
            let theme = try ThemeParser.parse(file.text, source: file.name)
            #expect(theme.name == file.name)
        }
        let names = BundledThemes.files.map(\.name)
        #expect(names.count >= 5)
        for required in ["default", "light", "mono"] { #expect(names.contains(required)) }
    }

    @Test func bundledThemesDefineEveryRoleExceptMemberSlotsInMono() throws {
        for file in BundledThemes.files {
            let theme = try ThemeParser.parse(file.text, source: file.name)
            let missing = Role.allCases.filter {
                theme.styles[$0] == nil && !(file.name == "mono" && Role.memberSlots.contains($0))
            }
            #expect(missing.isEmpty, "\(file.name) lacks \(missing.map(\.rawValue))")
        }
    }

    @Test func embeddedThemesMatchTheFilesInThemesFolder() {
        for file in BundledThemes.files {
            let path = repositoryRoot() + "/themes/\(file.name).toml"
            let onDisk = readText(path)
            #expect(
                onDisk == file.text + "\n" || onDisk == file.text,
                "themes/\(file.name).toml differs from the embedded copy: run themes/embed.sh")
        }
    }

    @Test func defaultUsesTheTerminalBackgroundAnd16Colours() throws {
        let theme = try ThemeParser.parse(BundledThemes.files[0].text, source: "default")
        for role in Role.allCases {
            let style = theme.style(for: role)
            for colour in [style.foreground, style.background] {
                if case .indexed = colour { Issue.record("\(role) uses a 256-colour value") }
            }
            #expect(style.background == .terminalDefault || role == .hintKey || role == .memberJoin)
        }
    }

    @Test func noColorPicksMonoAndAnExplicitThemeWins() {
        let catalog = ThemeCatalog(environment: [:])
        #expect(catalog.resolve(nil, environment: ["NO_COLOR": "1"]).theme.name == "mono")
        #expect(catalog.resolve(nil, environment: [:]).theme.name == "default")
        #expect(catalog.resolve("light", environment: ["NO_COLOR": "1"]).theme.name == "light")
    }

    @Test func unknownOrBrokenThemeFallsBackToDefaultWithAMessage() {
        let catalog = ThemeCatalog(environment: [:])
        let (theme, warning) = catalog.resolve("neon")
        #expect(theme.name == "default")
        #expect(warning?.contains("theme 'neon' not found (available: default, light, mono") == true)
        let broken = corpusFolder + "/unknown-colour.toml"
        let (theme2, warning2) = catalog.resolve(broken)
        #expect(theme2.name == "default")
        #expect(warning2?.contains("'gren' is not a colour") == true)
        #expect(warning2?.hasSuffix("using the default theme") == true)
    }

    @Test func userThemesAreLoadedFromTheConfigFolder() throws {
        let root = makeTemporaryFolder()
        mkdir(root + "/pushtop", 0o755)
        mkdir(root + "/pushtop/themes", 0o755)
        writeText(root + "/pushtop/themes/mine.toml", "name = \"mine\"\n[roles]\nborder = \"magenta\"\n")
        writeText(root + "/pushtop/themes/broken.toml", "name = \"b\"\n[roles]\nborder = \"nope\"\n")
        let catalog = ThemeCatalog(environment: ["XDG_CONFIG_HOME": root])
        #expect(catalog.theme(named: "mine")?.style(for: .border).foreground == .ansi(5))
        #expect(catalog.warnings.count == 1)
        #expect(catalog.warnings.first?.contains("broken.toml") == true)
        #expect(catalog.resolve("mine").theme.name == "mine")
    }
}

func readText(_ path: String) -> String? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        bytes += buffer[0..<n]
        if n < buffer.count { break }
    }
    return String(decoding: bytes, as: UTF8.self)
}

func writeText(_ path: String, _ text: String) {
    let f = fopen(path, "wb")!
    fputs(text, f)
    fclose(f)
}

func makeTemporaryFolder() -> String {
    var template = Array("/tmp/pushtop-dash-test-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}
