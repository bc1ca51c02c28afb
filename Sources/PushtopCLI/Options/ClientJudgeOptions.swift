import ArgumentParser

/// `pushtop conform --client`'s options: judge an app's client through a proxy instead of a server.
struct ClientJudgeOptions: ParsableArguments, ListenOptionHelp {
    @Flag(
        name: .customLong("client"),
        help:
            "Judge an app's Pusher client instead of a server: listen on --listen, relay to --upstream, run the client cases on what connects."
    )
    var enabled = false

    @OptionGroup var listen: ListenOption<ClientJudgeOptions>
    static let listenHelp = "With --client: where the client connects."

    @Flag(
        name: .customLong("allow-remote"),
        help: "With --client: allow --listen on an address other machines can reach (a phone, another computer).")
    var allowRemote = false

    @Option(
        name: .customLong("upstream"),
        help: ArgumentHelp(
            "With --client: the app's server, ws://HOST:PORT or wss://HOST:PORT (default: --host/--port/--tls).",
            valueName: "URL"))
    var upstream: String?

    @Option(
        name: .customLong("activity-timeout"),
        help: ArgumentHelp(
            "With --client: the activity_timeout announced to the client, in seconds (it must ping after this much silence).",
            valueName: "SECONDS"))
    var activityTimeout: Int = 5

    @Option(
        name: .customLong("pong-timeout"),
        help: ArgumentHelp(
            "With --client: how long a client may wait for a pong before giving a connection up (pusher-js: 30).",
            valueName: "SECONDS"))
    var pongTimeout: Double = 30

    @Option(
        name: .customLong("time-limit"),
        help: ArgumentHelp(
            "With --client: the whole run at most, waiting for the client included; cases not reached are not observed.",
            valueName: "SECONDS"))
    var timeLimit: Double = 300

    func validate() throws {
        try listen.check()
        guard (1...120).contains(activityTimeout) else {
            throw ValidationError("--activity-timeout must be 1 to 120 seconds")
        }
        guard pongTimeout > 0, pongTimeout <= 120 else {
            throw ValidationError("--pong-timeout must be more than 0 and at most 120 seconds")
        }
        guard timeLimit >= 10, timeLimit <= 3600 else {
            throw ValidationError("--time-limit must be 10 to 3600 seconds")
        }
    }
}
