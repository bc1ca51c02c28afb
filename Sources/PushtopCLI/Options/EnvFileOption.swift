import ArgumentParser
import Foundation
import PushtopConfig
import PushtopDashboard

/// `--env-file PATH`: the app's own `.env` (Laravel with Reverb or Pusher, soketi). Flags win over it; it wins
/// over the environment's app settings (`PUSHER_*`, `PUSHTOP_KEY`, ...) and the config file's default profile.
struct EnvFileOption: ParsableArguments {
    @Option(
        name: .customLong("env-file"),
        help: ArgumentHelp(
            "Read the app's key, secret, id, host, port and scheme from this .env file (Laravel's REVERB_* or PUSHER_*, soketi's SOKETI_DEFAULT_APP_*). Flags win over it; it wins over the environment.",
            valueName: "PATH"))
    var path: String?

    /// The file's settings, or `nil` without `--env-file`. Errors name the file, the line and the key.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DotEnvSettings? {
        guard let path else { return nil }
        do {
            return try DotEnvSettings.read(DotEnvFile.load(path: path, environment: environment))
        } catch {
            throw ValidationError("--env-file \(error)")
        }
    }

    /// The variables that name one app, which the file replaces as a whole.
    static let appVariables = [
        "PUSHER_APP_KEY", "PUSHER_CLUSTER", "PUSHER_HOST", "PUSHER_PORT", "PUSHER_APP_SECRET",
        "PUSHER_AUTH_ENDPOINT", "PUSHER_APP_ID", "PUSHTOP_KEY", "PUSHTOP_CLUSTER", "PUSHTOP_HOST", "PUSHTOP_PORT",
        "PUSHTOP_TLS", "PUSHTOP_SECRET", "PUSHTOP_AUTH_ENDPOINT",
    ]

    /// The environment as the commands read it: with `--env-file`, the environment's app variables replaced by
    /// the file's settings (as `PUSHER_*` and `PUSHTOP_TLS`), so the usual order (flags, then these) holds.
    static func environment(_ environment: [String: String], with settings: DotEnvSettings?) -> [String: String] {
        guard let settings else { return environment }
        var env = environment.filter { !appVariables.contains($0.key) }
        let p = settings.profile
        env["PUSHER_APP_KEY"] = p.key
        env["PUSHER_APP_SECRET"] = p.secret
        env["PUSHER_APP_ID"] = p.appID
        env["PUSHER_HOST"] = p.host
        env["PUSHER_PORT"] = p.port.map(String.init)
        env["PUSHER_CLUSTER"] = p.cluster
        env["PUSHTOP_TLS"] = p.tls.map { $0 ? "true" : "false" }
        // The config file's default profile is not read under --env-file: no --profile, no PUSHTOP_PROFILE.
        env["PUSHTOP_PROFILE"] = nil
        env[Self.marker] = "1"
        return env
    }

    /// Set in the environment ``environment(_:with:)`` returns: the config file's default profile is skipped.
    static let marker = "PUSHTOP_ENV_FILE_IN_USE"

    /// One line saying where each setting came from: `KEY (line N)` of the file, a flag that won over it, or
    /// what was assumed. Never a value of the secret.
    static func describe(_ settings: DotEnvSettings, flags: [String: String] = [:]) -> String {
        var parts: [String] = []
        for field in DotEnvSettings.fields {
            if let flag = flags[field] {
                if let source = settings.source(of: field) { parts.append("\(field) from \(flag) (over \(source))") }
                continue
            }
            if let source = settings.source(of: field) {
                parts.append("\(field) from \(source)")
            } else if let why = settings.assumed[field], let value = value(of: field, in: settings.profile) {
                parts.append("\(field) \(value) (\(why))")
            }
        }
        return "using \(settings.path) (\(settings.convention.rawValue)): " + parts.joined(separator: ", ")
    }

    private static func value(of field: String, in p: Profile) -> String? {
        switch field {
        case "host": return p.host
        case "port": return p.port.map(String.init)
        case "tls": return p.tls.map { $0 ? "https" : "http" }
        default: return nil
        }
    }
}

extension ConnectionOptions {
    /// The flags that override a `.env` setting, by the field names of ``DotEnvSettings/fields``.
    var flagsOverEnvFile: [String: String] {
        var flags: [String: String] = [:]
        if key != nil { flags["key"] = "--key" }
        if secret != nil { flags["secret"] = "--secret" }
        if host != nil { flags["host"] = "--host" }
        if port != nil { flags["port"] = "--port" }
        if cluster != nil { flags["cluster"] = "--cluster" }
        if let tls { flags["tls"] = tls ? "--tls" : "--no-tls" }
        return flags
    }

    /// The environment the command reads (with `--env-file` applied), and the file's settings.
    func resolvedEnvironment(_ base: [String: String] = ProcessInfo.processInfo.environment) throws
        -> (environment: [String: String], settings: DotEnvSettings?)
    {
        let settings = try envFile.settings(environment: base)
        return (EnvFileOption.environment(base, with: settings), settings)
    }

    /// Says on stderr which settings came from the `.env` file (nothing without one).
    func announceEnvFile(_ settings: DotEnvSettings?, command: String) {
        guard let settings else { return }
        FileHandle.standardError.write(
            Data("pushtop \(command): \(EnvFileOption.describe(settings, flags: flagsOverEnvFile))\n".utf8))
    }
}

extension DotEnvSettings {
    /// `self`, or an error naming the `.env` key a command needs and the file lacks (e.g. `REVERB_APP_SECRET`).
    func requiring(_ fields: [String], for why: String) throws -> DotEnvSettings {
        for field in fields {
            let missing: Bool
            switch field {
            case "key": missing = profile.key == nil
            case "secret": missing = profile.secret == nil
            case "app_id": missing = profile.appID == nil
            default: missing = false
            }
            if missing { throw ValidationError("--env-file \(path): \(expectedKey(field)) is missing (\(why))") }
        }
        return self
    }

    /// The key this file's convention uses for a field.
    func expectedKey(_ field: String) -> String {
        let prefix: String
        switch convention {
        case .reverb: prefix = "REVERB_APP_"
        case .pusher: prefix = "PUSHER_APP_"
        case .soketi: prefix = "SOKETI_DEFAULT_APP_"
        }
        switch field {
        case "app_id": return prefix + "ID"
        default: return prefix + field.uppercased()
        }
    }
}
