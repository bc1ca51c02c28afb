import Foundation
import PusherChannels
import PushtopConfig
import PushtopDashboard

/// What `pushtop config check` found: lines that passed, and problems naming file, key and what is wrong.
struct ConfigCheck {
    var lines: [String] = []
    var problems: [String] = []

    /// Checks the config file at `path` and the theme folders of `environment`.
    static func run(path: String, environment: [String: String]) -> ConfigCheck {
        var check = ConfigCheck()
        let catalog = ThemeCatalog(environment: environment)
        check.checkFile(path: path, catalog: catalog)
        check.checkThemes(catalog: catalog, environment: environment)
        return check
    }

    private mutating func checkFile(path: String, catalog: ThemeCatalog) {
        guard FileManager.default.fileExists(atPath: path) else {
            problems.append("\(path): no such file (pushtop config init writes a commented one)")
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            problems.append("\(path): cannot read the file")
            return
        }
        let file: ConfigFile
        do {
            file = try ConfigFile.parse(String(decoding: data, as: UTF8.self), path: path)
        } catch {
            problems.append(error.description)
            return
        }
        // Values that parse but cannot work: a theme that does not exist, an auth endpoint that is not a URL.
        let tables =
            [("", file.defaults)] + file.profiles.sorted { $0.key < $1.key }.map { ("profiles.\($0.key).", $0.value) }
        for (prefix, profile) in tables {
            if let theme = profile.theme {
                let (_, warning) = catalog.resolve(theme)
                if let warning {
                    problems.append(
                        "\(path): \(prefix)theme: \(warning.replacingOccurrences(of: "; using the default theme", with: ""))"
                    )
                }
            }
            if let endpoint = profile.authEndpoint, URL(string: endpoint)?.scheme?.hasPrefix("http") != true {
                problems.append("\(path): \(prefix)auth_endpoint: expected an http(s) URL, found '\(endpoint)'")
            }
            if let endpoint = profile.userAuthEndpoint, URL(string: endpoint)?.scheme?.hasPrefix("http") != true {
                problems.append("\(path): \(prefix)user_auth_endpoint: expected an http(s) URL, found '\(endpoint)'")
            }
            if let caFile = profile.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
                problems.append("\(path): \(prefix)ca_file: '\(caFile)' is not a readable file")
            }
            if let host = profile.host, host.contains("/") || host.contains(" ") {
                problems.append(
                    "\(path): \(prefix)host: expected a host name or address, found '\(host)' (no scheme or path)")
            }
        }
        let names = file.profiles.keys.sorted()
        if problems.isEmpty {
            var summary = "ok: \(path): \(names.count) profile\(names.count == 1 ? "" : "s")"
            if !names.isEmpty { summary += " (\(names.joined(separator: ", ")))" }
            if let chosen = file.defaultProfile { summary += ", default \(chosen)" }
            if !file.open.isEmpty { summary += ", the dashboard opens \(file.open.joined(separator: ", "))" }
            lines.append(summary)
        }
    }

    /// Checks the themes alone (when there is no config file to check).
    mutating func checkThemes(environment: [String: String]) {
        checkThemes(catalog: ThemeCatalog(environment: environment), environment: environment)
    }

    /// Adds another check's lines and problems.
    mutating func merge(_ other: ConfigCheck) {
        lines += other.lines
        problems += other.problems
    }

    /// Checks a `.env` file (`--env-file`) and names the key and line each setting comes from.
    mutating func checkEnvFile(_ path: String, environment: [String: String]) {
        do {
            let settings = try DotEnvSettings.read(DotEnvFile.load(path: path, environment: environment))
            lines.append("ok: " + EnvFileOption.describe(settings))
            var missing: [String] = []
            if settings.profile.secret == nil {
                missing.append("\(settings.expectedKey("secret")) (signing private channels, the HTTP API)")
            }
            if settings.profile.appID == nil { missing.append("\(settings.expectedKey("app_id")) (the HTTP API)") }
            if !missing.isEmpty { lines.append("note: \(path) has no " + missing.joined(separator: " and no ")) }
        } catch {
            problems.append("\(error)")
        }
    }

    private mutating func checkThemes(catalog: ThemeCatalog, environment: [String: String]) {
        problems += catalog.warnings
        let folders = [ThemeCatalog.installedFolder(environment: environment), catalog.userFolder].compactMap { $0 }
        let present = folders.filter { FileManager.default.fileExists(atPath: $0) }
        if catalog.warnings.isEmpty {
            let locations = present.isEmpty ? "no theme folder" : present.joined(separator: ", ")
            lines.append("ok: themes \(catalog.themes.map(\.name).joined(separator: ", ")) (\(locations))")
        }
    }
}
