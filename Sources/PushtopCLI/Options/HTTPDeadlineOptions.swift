import ArgumentParser

/// `--request-timeout` and `--idle-timeout`: the HTTP deadlines of a listener that strangers reach. `serve` shows
/// them; `proxy`, whose listener is the same, hides them (for tests that cannot wait out the defaults).
struct HTTPDeadlineOptions: ParsableArguments {
    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp("Seconds an HTTP request may take to send its headers, then its body.", valueName: "SECONDS")
    )
    var requestTimeout: Double = 10

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Seconds an HTTP connection may stay idle between requests.", valueName: "SECONDS"))
    var idleTimeout: Double = 60

    func validate() throws {
        guard requestTimeout > 0, idleTimeout > 0 else {
            throw ValidationError("--request-timeout and --idle-timeout must be positive")
        }
    }
}
