import ArgumentParser
import Foundation

/// The `pushtop` command: a terminal dashboard, headless client, server and publisher for Pusher-protocol apps.
///
/// The executable (`Sources/pushtop/main.swift`) only calls ``launch()``; the commands live in this library so that
/// tests, benchmarks and fuzzers import them instead of compiling the executable's files.
public struct Pushtop: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pushtop",
        abstract: "Watch Pusher Channels (and soketi, Reverb, ...) from the terminal.",
        version: PushtopVersion.full,
        subcommands: [
            DashboardCommand.self, DemoCommand.self, ServeCommand.self, WatchCommand.self, TriggerCommand.self,
            BenchCommand.self, ReplayCommand.self, DoctorCommand.self, ConfigCommand.self, CanaryCommand.self,
            ConformCommand.self, ConsoleCommand.self, WebhooksCommand.self, ProxyCommand.self,
        ],
        defaultSubcommand: DashboardCommand.self
    )

    public init() {}

    /// The executable's entry point (`Sources/pushtop/main.swift`): ``launch()``.
    public static func main() async {
        await launch()
    }

    /// Runs the command line; first points the theme catalog at the installed themes, if any.
    ///
    /// A name of its own: from top-level code, `Pushtop.main()` may resolve to swift-argument-parser's synchronous
    /// `main()` instead of this type's.
    public static func launch() async {
        InstallLayout.exportShareDirectory()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // The canary's and conform's bad usage exits 2 (as scripts and CI expect), not 64.
            if CanaryCommand.isInvocation() || ConformCommand.isInvocation(), exitCode(for: error) == .validationFailure
            {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// The version pushtop reports (`--version`, and `version=` in the WebSocket URL).
enum PushtopVersion {
    static let string = "0.1.0"
    /// `--version`: the version and the commit the binary was built from.
    static let full = "\(string) (commit \(BuildInfo.commit))"
}
