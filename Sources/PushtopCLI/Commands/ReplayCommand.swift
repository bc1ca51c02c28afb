import ArgumentParser
import Foundation
import PushtopDashboard

/// `pushtop replay FILE [--speed N]`: the dashboard on a recording, with no network.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Open the dashboard on a recording (pushtop --record FILE, watch --record FILE), without network.",
        discussion: """
            Keys: Space play/pause, . step, + / - speed (×0.5 to ×16), J jump to a time (m:ss, seconds, +/-s); \
            every other key works as live (w wire inspector, Enter detail, / filter, ...).

            A truncated or damaged recording replays up to the damage; the header says at which line it stopped.
            """
    )

    @Argument(help: "The recording (JSON lines).")
    var file: String

    @Option(help: "Replay speed: 0.5, 1, 2, 4, 8 or 16.")
    var speed: Double = 1

    @Flag(help: "Start paused (Space plays).")
    var paused = false

    @Option(help: "Theme name (default, light, mono, solarized, gruvbox) or path to a theme file.")
    var theme: String?

    @Option(name: .customLong("log-file"), help: "Write logs to this file (the screen never shows them).")
    var logFile: String?

    mutating func validate() throws {
        guard ReplayStatus.speeds.contains(speed) else {
            throw ValidationError("--speed \(speed) is not one of 0.5, 1, 2, 4, 8, 16")
        }
    }

    func run() async throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ValidationError("cannot read \(file): \(error.localizedDescription)")
        }
        var player = ReplayPlayer(
            file: (file as NSString).lastPathComponent, text: String(decoding: data, as: UTF8.self))
        guard player.header != nil else {
            throw ValidationError("\(file) is not a pushtop recording: \(player.damage?.description ?? "it is empty")")
        }
        try DashboardLauncher.requireTerminal()
        DashboardLauncher.bootstrapLogging(logFile)
        player.configure(speed: speed, playing: !paused)
        // Recorded console rows (`pushtop console --record`, the dashboard's console) reach the console view.
        let console = ConsoleFeed()
        player.console = console
        let environment = ProcessInfo.processInfo.environment
        var options = DashboardOptions(theme: theme ?? environment["PUSHTOP_THEME"], environment: environment)
        options.console = console
        let exit = try await runReplay(player, options: options)
        if exit.exitStatus != 0 { throw ExitCode(exit.exitStatus) }
    }
}
