import ArgumentParser
import Logging

/// `--log-level`, as the long-running commands (`serve`, `proxy`) take it: read and checked in one place.
struct LogLevelOption: ParsableArguments {
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Log level on stderr: trace, debug, info, notice, warning, error, critical.", valueName: "LEVEL"))
    var name: String = "info"

    /// The level asked for (checked by ``validate()``).
    var level: Logger.Level { Logger.Level(rawValue: name) ?? .info }

    func validate() throws {
        guard Logger.Level(rawValue: name) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }
}
