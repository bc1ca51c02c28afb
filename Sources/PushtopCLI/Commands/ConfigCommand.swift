import ArgumentParser
import Foundation
import PushtopConfig
import PushtopDashboard

/// `pushtop config`: write a starting config file, and check the one there is.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Create or check the config file (~/.config/pushtop/config.toml) and the theme files.",
        subcommands: [Init.self, Check.self]
    )

    /// `pushtop config init`: writes the commented template.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a commented config.toml (refuses to overwrite one without --force).")

        @Option(
            help: ArgumentHelp(
                "Where to write (default: $XDG_CONFIG_HOME/pushtop/config.toml or ~/.config/pushtop/config.toml).",
                valueName: "PATH"))
        var path: String?

        @Flag(help: "Replace an existing file.")
        var force = false

        @Option(
            name: .customLong("from-env-file"),
            help: ArgumentHelp(
                "Write a profile from this .env file (Laravel's REVERB_* or PUSHER_*, soketi's SOKETI_DEFAULT_APP_*) instead of the template; added to an existing file.",
                valueName: "PATH"))
        var fromEnvFile: String?

        @Option(
            help: ArgumentHelp(
                "The profile's name with --from-env-file (default: reverb, pusher or soketi).", valueName: "NAME"))
        var name: String?

        func run() throws {
            let path = try ConfigCommand.resolvePath(path)
            if let fromEnvFile {
                try ProfileFromEnvFile.write(envFile: fromEnvFile, name: name, to: path)
                return
            }
            let manager = FileManager.default
            if manager.fileExists(atPath: path), !force {
                FileHandle.standardError.write(
                    Data("pushtop config init: \(path) exists; not overwritten (use --force to replace it)\n".utf8))
                throw ExitCode.failure
            }
            do {
                try manager.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(ConfigTemplate.text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                FileHandle.standardError.write(
                    Data("pushtop config init: cannot write \(path): \(error.localizedDescription)\n".utf8))
                throw ExitCode.failure
            }
            print("wrote \(path) (edit it, then: pushtop config check)")
        }
    }

    /// `pushtop config check`: parses the file and every theme, naming file, key and problem.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate the config file and the theme files; exit 0 when both are fine, 1 otherwise.")

        @Option(help: ArgumentHelp("The file to check (default: the config file pushtop reads).", valueName: "PATH"))
        var path: String?

        @OptionGroup var envFile: EnvFileOption

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            let explicitPath = path
            let path = try ConfigCommand.resolvePath(path)
            var report = ConfigCheck()
            if let envPath = envFile.path {
                report.checkEnvFile(envPath, environment: environment)
                // With --env-file the config file is optional.
                if explicitPath == nil, !FileManager.default.fileExists(atPath: path) {
                    report.lines.append("ok: no config file at \(path) (not needed with --env-file)")
                    report.checkThemes(environment: environment)
                } else {
                    report.merge(ConfigCheck.run(path: path, environment: environment))
                }
            } else {
                report = ConfigCheck.run(path: path, environment: environment)
            }
            for line in report.lines { print(line) }
            for problem in report.problems {
                FileHandle.standardError.write(Data("error: \(problem)\n".utf8))
            }
            if !report.problems.isEmpty { throw ExitCode.failure }
        }
    }

    /// `path`, or the config file's standard location.
    static func resolvePath(_ path: String?) throws -> String {
        if let path { return path }
        guard let standard = ConfigFile.path(environment: ProcessInfo.processInfo.environment) else {
            throw ValidationError("neither XDG_CONFIG_HOME nor HOME is set: give --path")
        }
        return standard
    }
}
