import ArgumentParser

/// The `pushtop` command: a terminal dashboard, headless client, server and publisher for Pusher-protocol apps.
@main
struct Pushtop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushtop",
        abstract: "Watch Pusher Channels (and soketi, Reverb, ...) from the terminal.",
        version: PushtopVersion.string,
        subcommands: [
            DashboardCommand.self, DemoCommand.self, ServeCommand.self, WatchCommand.self, TriggerCommand.self,
            BenchCommand.self, ReplayCommand.self,
        ],
        defaultSubcommand: DashboardCommand.self
    )
}

/// The version pushtop reports (`--version`, and `version=` in the WebSocket URL).
enum PushtopVersion {
    static let string = "0.1.0"
}
