import Foundation
import PushtopTestSupport
import Testing

/// What `scripts/install` puts in place, checked with the debug binary: completions, the tool description the
/// man page is generated from, `--version`, and an installed tree whose binary finds its themes.
@Suite(.timeLimit(.minutes(1))) struct ShellIntegrationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func versionNamesTheVersionAndTheCommit() async throws {
        let run = try await CommandRun.run("pushtop", ["--version"])
        #expect(run.status == 0)
        let line = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.wholeMatch(of: /\d+\.\d+\.\d+ \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\)/) != nil, "\(line)")
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsCoverEverySubcommand(shell: String) async throws {
        let run = try await CommandRun.run("pushtop", ["--generate-completion-script", shell])
        #expect(run.status == 0, "\(run.stderr)")
        for word in ["watch", "serve", "trigger", "doctor", "config", "auth-endpoint"] {
            #expect(run.stdout.contains(word), "\(shell) completion offers \(word)")
        }
        if shell == "bash" {
            let script = FileManager.default.temporaryDirectory.appendingPathComponent(
                "pushtop-\(UUID().uuidString).bash")
            try Data(run.stdout.utf8).write(to: script)
            let syntax = try await CommandRun.run("/bin/bash", ["-n", script.path])
            #expect(syntax.status == 0, "bash -n: \(syntax.stderr)")
        }
    }

    /// The man page generator (swift-argument-parser's generate-manual) renders this description.
    @Test func theToolDescriptionForTheManPageListsTheCommands() async throws {
        let run = try await CommandRun.run("pushtop", ["--experimental-dump-help"])
        #expect(run.status == 0)
        let info = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let command = info?["command"] as? [String: Any]
        let names = (command?["subcommands"] as? [[String: Any]] ?? []).compactMap { $0["commandName"] as? String }
        #expect(command?["commandName"] as? String == "pushtop")
        #expect(
            Set(["dashboard", "serve", "watch", "trigger", "doctor", "config"]).isSubset(of: Set(names)), "\(names)")
    }

    @Test func installPutsBinaryCompletionsAndThemesInPlaceAndTheBinaryFindsItsThemes() async throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-prefix-\(UUID().uuidString)"
        ).path
        let run = try await CommandRun.run(
            Self.repository.appendingPathComponent("scripts/install").path,
            [
                "--prefix", prefix, "--binary", CommandRun.binDirectory.appendingPathComponent("pushtop").path,
                "--skip-man",
            ])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        for path in [
            "bin/pushtop", "share/bash-completion/completions/pushtop", "share/zsh/site-functions/_pushtop",
            "share/fish/vendor_completions.d/pushtop.fish", "share/pushtop/themes/solarized.toml",
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + path), "\(path) installed")
        }
        // An installed theme the binary does not bundle: found through PREFIX/share/pushtop/themes.
        try Data("name = \"site\"\n[roles]\nborder = \"red\"\n".utf8)
            .write(to: URL(fileURLWithPath: prefix + "/share/pushtop/themes/site.toml"))
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pushtop-home-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: home + "/pushtop", withIntermediateDirectories: true)
        try Data("theme = \"site\"\n".utf8).write(to: URL(fileURLWithPath: home + "/pushtop/config.toml"))
        let check = try await CommandRun.run(
            prefix + "/bin/pushtop", ["config", "check"], environment: ["XDG_CONFIG_HOME": home])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        #expect(check.stdout.contains("site"))
        #expect(check.stdout.contains(prefix + "/share/pushtop/themes"))
        try? FileManager.default.removeItem(atPath: prefix)
    }
}
