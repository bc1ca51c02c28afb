import Foundation
import PushtopTestSupport
import Testing

/// The commit `scripts/install` stamps into the binary: written by `scripts/build-stamp` into a generated,
/// git-ignored source that `BuildInfo` reads under `-DPUSHTOP_BUILD_STAMP`. The checkout is left as it was, and
/// the stamped build names the commit. (The full release install takes minutes: this runs the stamping step and
/// compiles `BuildInfo.swift` with the stamp, as the install's build does.)
@Suite(.timeLimit(.minutes(2))) struct BuildStampTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func git(_ arguments: [String]) async throws -> CommandRun {
        try await CommandRun.run("/usr/bin/env", ["git", "-C", repository.path] + arguments)
    }

    @Test func theStampNamesTheCommitAndLeavesTheCheckoutAsItWas() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-stamp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let statusBefore = try await Self.git(["status", "--porcelain"])
        let head = try await Self.git(["rev-parse", "--short", "HEAD"])
        let expected = head.status == 0 ? head.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : "unknown"

        // The default place (inside the pushtop target) is git-ignored: writing it changes nothing git sees.
        let defaultStamp = Self.repository.appendingPathComponent("Sources/PushtopCLI/Support/BuildStamp.swift")
        let hadStamp = FileManager.default.fileExists(atPath: defaultStamp.path)
        let ignored = try await Self.git(["check-ignore", "-q", "Sources/PushtopCLI/Support/BuildStamp.swift"])
        #expect(ignored.status == 0 || head.status != 0, "BuildStamp.swift is git-ignored")

        let stamp = directory.appendingPathComponent("BuildStamp.swift")
        let run = try await CommandRun.run(
            Self.repository.appendingPathComponent("scripts/build-stamp").path, [stamp.path])
        #expect(run.status == 0, "\(run.stderr)")
        let commit = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(commit == expected || commit == expected + "-dirty", "stamped \(commit), HEAD is \(expected)")
        #expect(try String(contentsOf: stamp, encoding: .utf8).contains("static let commit = \"\(commit)\""))
        let statusAfter = try await Self.git(["status", "--porcelain"])
        #expect(statusAfter.stdout == statusBefore.stdout, "the checkout is unchanged")
        #expect(FileManager.default.fileExists(atPath: defaultStamp.path) == hadStamp)

        // BuildInfo.swift as the install's build compiles it: with the stamp and the define it names the commit;
        // without the define (every other build) it says "unknown".
        let main = directory.appendingPathComponent("main.swift")
        try Data("print(BuildInfo.commit)\n".utf8).write(to: main)
        let buildInfo = Self.repository.appendingPathComponent("Sources/PushtopCLI/Support/BuildInfo.swift").path
        for (define, says) in [(true, commit), (false, "unknown")] {
            let binary = directory.appendingPathComponent(define ? "stamped" : "plain").path
            let compile = try await CommandRun.run(
                "/usr/bin/env",
                ["swiftc"] + (define ? ["-DPUSHTOP_BUILD_STAMP"] : []) + [
                    buildInfo, stamp.path, main.path, "-o", binary,
                ],
                timeout: 100)
            #expect(compile.status == 0, "swiftc: \(compile.stderr)")
            let version = try await CommandRun.run(binary, [])
            #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == says)
        }
    }
}
