import Foundation
import PushtopTestSupport
import Testing

/// `docs/options.md` is generated from the argument parser: the committed page is what the built binary's
/// `--experimental-dump-help` renders to, and every command and option is on it.
@Suite(.timeLimit(.minutes(1))) struct OptionsReferenceTests {
    /// The built binary's description of its command tree (the environment cleared of app settings by
    /// `CommandRun`, so no default depends on the machine).
    static func dumpHelp() async throws -> Data {
        let run = try await CommandRun.run("pushtop", ["--experimental-dump-help"])
        #expect(run.status == 0, "\(run.stderr)")
        return Data(run.stdout.utf8)
    }

    @Test func theCommittedPageIsWhatTheArgumentParserGenerates() async throws {
        let page = try OptionsReference.markdown(dumpHelp: try await Self.dumpHelp())
        let stale = try GeneratedPage.check(OptionsReference.path, generated: page)
        #expect(stale == nil, "\(stale ?? "")")
    }

    @Test func everyCommandAndOptionIsOnThePage() async throws {
        let page = try OptionsReference.markdown(dumpHelp: try await Self.dumpHelp())
        for command in [
            "dashboard", "demo", "serve", "watch", "trigger", "bench", "replay", "doctor", "config init",
            "config check", "canary",
        ] {
            #expect(page.contains("## `pushtop \(command)`\n"), "no section for \(command)")
        }
        #expect(page.contains("| `--tls, --no-tls` |"), "a flag and its inversion share a row")
        for option in ["`--key <key>`", "`--redis <URL>`", "`--stdin`", "`--speed <speed>`", "`--env-file <PATH>`"] {
            #expect(page.contains(option), "\(option) is not on the page")
        }
        #expect(
            !page.contains("`-h, --help`") && !page.contains("`--version`"),
            "--help and --version are said once, not on every command")
    }

    @Test func markdownInHelpTextIsEscaped() {
        #expect(OptionsReference.text("a|b <x> *y* ~/z `q`\nnext") == "a\\|b \\<x> \\*y\\* \\~/z \\`q\\` next")
        #expect(OptionsReference.anchor("pushtop config init") == "pushtop-config-init")
    }
}
