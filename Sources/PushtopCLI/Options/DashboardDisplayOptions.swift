import ArgumentParser
import PushtopConfig

/// The options the dashboard's commands share (`pushtop`, `pushtop demo`): the theme, where logs go, and a recording.
struct DashboardDisplayOptions: ParsableArguments {
    @Option(help: "Theme name (default, light, mono, solarized, gruvbox) or path to a theme file.")
    var theme: String?

    @Option(name: .customLong("log-file"), help: "Write logs to this file (the screen never shows them).")
    var logFile: String?

    @Option(
        name: .customLong("record"),
        help:
            "Record everything the dashboard receives to this file (JSON lines; replay with 'pushtop replay FILE'). The key r starts and stops recording too."
    )
    var record: String?

    @Option(
        name: .customLong("webhook-listen"),
        help: ArgumentHelp(
            "Receive the app's webhooks here for the debug console (Pusher, soketi, sockudo, pushtop serve; point the server's webhook URL at it).",
            valueName: "HOST:PORT"))
    var webhookListen: String?

    func validate() throws {
        if let webhookListen, NodeAddress.listening(webhookListen) == nil {
            throw ValidationError("--webhook-listen: \(NodeAddress.problem(webhookListen)) (port 0: any free port)")
        }
    }

    /// The webhook receiver's address (`--webhook-listen`).
    var webhookAddress: NodeAddress? { webhookListen.flatMap(NodeAddress.listening) }

    /// The same options as arguments for another command (`pushtop` runs the demo when no app is configured).
    var arguments: [String] {
        [("--theme", theme), ("--log-file", logFile), ("--record", record), ("--webhook-listen", webhookListen)].flatMap
        { name, value in
            value.map { [name, $0] } ?? []
        }
    }
}
