import Foundation
import PushtopTestSupport
import Testing

/// The commit an installed pushtop names: `scripts/install` writes it to `PREFIX/share/pushtop/commit`
/// (`scripts/build-stamp`) and the installed binary reads it at run time, so nothing about the commit goes into the
/// compilation (a define or a generated source would change the flags of the release build that `./scripts/run`
/// makes, and installing would rebuild every module). The checkout is left as it was; a binary that is not installed
/// says "unknown". The man page comes from the installed binary. (Installed from the debug build here: the release
/// build takes minutes.)
@Suite(.timeLimit(.minutes(2))) struct BuildStampTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func git(_ arguments: [String]) async throws -> CommandRun {
        try await CommandRun.run("/usr/bin/env", ["git", "-C", repository.path] + arguments)
    }

    @Test func theInstalledBinaryNamesTheCommitAndTheCheckoutIsLeftAsItWas() async throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-stamp-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let statusBefore = try await Self.git(["status", "--porcelain"])
        let head = try await Self.git(["rev-parse", "--short", "HEAD"])
        let expected = head.status == 0 ? head.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : "unknown"

        let built = CommandRun.binDirectory.appendingPathComponent("pushtop").path
        let install = try await CommandRun.run(
            Self.repository.appendingPathComponent("scripts/install").path,
            ["--prefix", prefix, "--binary", built], timeout: 100)
        #expect(install.status == 0, "\(install.stdout) \(install.stderr)")
        // The man page, generated from the installed binary by argument-parser's generator (no second build).
        let manual = try String(contentsOfFile: prefix + "/share/man/man1/pushtop.1", encoding: .utf8)
        #expect(manual.contains(".Dt PUSHTOP 1") && manual.contains("serve"))

        let installed = try await CommandRun.run(prefix + "/bin/pushtop", ["--version"])
        let line = installed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            line == "0.1.0 (commit \(expected))" || line == "0.1.0 (commit \(expected)-dirty)",
            "installed: \(line), HEAD is \(expected)")
        let notInstalled = try await CommandRun.run(built, ["--version"])
        #expect(notInstalled.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0 (commit unknown)")

        let statusAfter = try await Self.git(["status", "--porcelain"])
        #expect(statusAfter.stdout == statusBefore.stdout, "the checkout is unchanged")
        // No generated source in the tree: the commit is not compiled in.
        let tracked = try await Self.git(["ls-files", "Sources"])
        #expect(!tracked.stdout.contains("BuildStamp"), "a stamp source is committed")
    }

    @Test func theInstalledBinaryStripsItsDebugInformation() async throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-strip-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let built = CommandRun.binDirectory.appendingPathComponent("pushtop").path
        let install = try await CommandRun.run(
            Self.repository.appendingPathComponent("scripts/install").path,
            ["--prefix", prefix, "--binary", built, "--skip-man"], timeout: 100)
        #expect(install.status == 0, "\(install.stdout) \(install.stderr)")
        let sections = try await CommandRun.run("/usr/bin/env", ["readelf", "-S", "-W", prefix + "/bin/pushtop"])
        #expect(sections.status == 0, "\(sections.stderr)")
        #expect(!sections.stdout.contains(".debug_info"), "the installed binary keeps its DWARF")
        #expect(!sections.stdout.contains(".swift_ast"), "the installed binary keeps the modules embedded for LLDB")
        #expect(sections.stdout.contains(".symtab"), "the installed binary lost its symbols (backtraces need them)")
        let builtSections = try await CommandRun.run("/usr/bin/env", ["readelf", "-S", "-W", built])
        #expect(builtSections.stdout.contains(".debug_info"), "the build's own binary is left as built")
        let help = try await CommandRun.run(prefix + "/bin/pushtop", ["--help"])
        #expect(help.status == 0 && help.stdout.contains("watch"))
    }
}
