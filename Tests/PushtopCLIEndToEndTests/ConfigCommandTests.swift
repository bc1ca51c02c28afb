import Foundation
import PushtopTestSupport
import Testing

/// `pushtop config init` and `pushtop config check` (the real binary) on files in a temporary config folder.
@Suite(.timeLimit(.minutes(1))) struct ConfigCommandTests {
    /// A fresh `XDG_CONFIG_HOME` with nothing in it.
    private func freshHome() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pushtop-config-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func initWritesACommentedFileThatChecksCleanAndRefusesToOverwrite() async throws {
        let home = try freshHome()
        let env = ["XDG_CONFIG_HOME": home]
        let path = home + "/pushtop/config.toml"
        let first = try await CommandRun.run("pushtop", ["config", "init"], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("wrote \(path)"))
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("# pushtop configuration"))
        #expect(written.contains("[profiles.local]"))

        let check = try await CommandRun.run("pushtop", ["config", "check"], environment: env)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("ok: \(path): 1 profile (local), default local"))

        try write("# mine\n", to: path)
        let again = try await CommandRun.run("pushtop", ["config", "init"], environment: env)
        #expect(again.status == 1)
        #expect(again.stderr.contains("\(path) exists; not overwritten (use --force"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "# mine\n", "the user's file is untouched")

        let forced = try await CommandRun.run("pushtop", ["config", "init", "--force"], environment: env)
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == written)
    }

    @Test func checkNamesTheFileTheKeyAndTheProblem() async throws {
        let home = try freshHome()
        let path = home + "/pushtop/config.toml"
        try write("[profiles.prod]\nkey = \"k\"\nport = \"eighty\"\n", to: path)
        let run = try await CommandRun.run("pushtop", ["config", "check"], environment: ["XDG_CONFIG_HOME": home])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains("error: \(path): profiles.prod.port: expected an integer, found a string"),
            "\(run.stderr)")
    }

    @Test func checkReportsAnUnknownThemeAndABrokenThemeFile() async throws {
        let home = try freshHome()
        let path = home + "/pushtop/config.toml"
        try write("theme = \"no-such-theme\"\n[profiles.a]\nkey = \"k\"\n", to: path)
        try write("name = \"broken\"\n[roles]\nborder = \"gren bold\"\n", to: home + "/pushtop/themes/broken.toml")
        let run = try await CommandRun.run("pushtop", ["config", "check"], environment: ["XDG_CONFIG_HOME": home])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: \(path): theme: theme 'no-such-theme' not found"), "\(run.stderr)")
        #expect(run.stderr.contains("broken.toml"), "\(run.stderr)")
    }

    @Test func checkValidatesTheListOfAppsTheDashboardOpens() async throws {
        let home = try freshHome()
        let path = home + "/pushtop/config.toml"
        let profiles = "[profiles.staging]\nkey = \"a\"\n[profiles.production]\nkey = \"b\"\n"
        try write("open = [\"staging\", \"production\"]\n" + profiles, to: path)
        let ok = try await CommandRun.run("pushtop", ["config", "check"], environment: ["XDG_CONFIG_HOME": home])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("the dashboard opens staging, production"), "\(ok.stdout)")
        try write("open = [\"staging\", \"prod\"]\n" + profiles, to: path)
        let unknown = try await CommandRun.run("pushtop", ["config", "check"], environment: ["XDG_CONFIG_HOME": home])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("error: \(path): open[1]: no [profiles.prod] table"), "\(unknown.stderr)")
        try write("open = \"staging\"\n" + profiles, to: path)
        let notAList = try await CommandRun.run("pushtop", ["config", "check"], environment: ["XDG_CONFIG_HOME": home])
        #expect(notAList.status == 1)
        #expect(
            notAList.stderr.contains("open: expected an array of profile names, found a string"), "\(notAList.stderr)")
    }

    @Test func checkWithoutAFileSaysHowToMakeOne() async throws {
        let home = try freshHome()
        let run = try await CommandRun.run("pushtop", ["config", "check"], environment: ["XDG_CONFIG_HOME": home])
        #expect(run.status == 1)
        #expect(run.stderr.contains("no such file (pushtop config init writes a commented one)"))
    }
}
