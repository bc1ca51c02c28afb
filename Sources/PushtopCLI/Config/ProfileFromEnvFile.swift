import ArgumentParser
import Foundation
import PusherProtocol
import PushtopConfig
import PushtopDashboard

/// `pushtop config init --from-env-file .env`: a `[profiles.NAME]` table from an app's `.env`, written to a new
/// config file (as its default profile) or added to the existing one.
enum ProfileFromEnvFile {
    static func write(envFile: String, name: String?, to path: String) throws {
        let settings: DotEnvSettings
        do {
            settings = try DotEnvSettings.read(
                DotEnvFile.load(path: envFile, environment: ProcessInfo.processInfo.environment))
        } catch {
            throw ValidationError("--from-env-file \(error)")
        }
        let name = name ?? settings.convention.rawValue.lowercased()
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else {
            throw ValidationError("--name '\(name)': use letters, digits, - and _")
        }
        let manager = FileManager.default
        var text = ""
        if manager.fileExists(atPath: path) {
            guard let data = manager.contents(atPath: path) else {
                throw fail("cannot read \(path)")
            }
            text = String(decoding: data, as: UTF8.self)
            if let file = try? ConfigFile.parse(text, path: path), file.profiles[name] != nil {
                throw fail("\(path) already has [profiles.\(name)]; choose another --name")
            }
            if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
            text += "\n"
        } else {
            text = "# Written by `pushtop config init --from-env-file \(envFile)`.\nprofile = \"\(name)\"\n\n"
        }
        text += table(name: name, settings: settings)
        do {
            try manager.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            // The profile holds the app secret: only the user reads it.
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        } catch {
            throw fail("cannot write \(path): \(error.localizedDescription)")
        }
        print("wrote [profiles.\(name)] to \(path) (\(EnvFileOption.describe(settings)))")
    }

    /// The profile table, with where each value came from.
    static func table(name: String, settings: DotEnvSettings) -> String {
        let p = settings.profile
        var lines = ["[profiles.\(name)]"]
        func add(_ key: String, _ value: String, field: String) {
            let origin = settings.source(of: field) ?? settings.assumed[field]
            lines.append("\(key) = \(value)" + (origin.map { "  # \($0)" } ?? ""))
        }
        if let v = p.key { add("key", quote(v), field: "key") }
        if let v = p.secret { add("secret", quote(v), field: "secret") }
        if let v = p.appID { add("app_id", quote(v), field: "app_id") }
        if let v = p.host { add("host", quote(v), field: "host") }
        if let v = p.port { add("port", String(v), field: "port") }
        if let v = p.tls { add("tls", v ? "true" : "false", field: "tls") }
        if let v = p.cluster, p.host == nil { add("cluster", quote(v), field: "cluster") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A TOML basic string: TOML reads JSON's escapes, and wants DEL escaped as well.
    static func quote(_ s: String) -> String {
        var out = ""
        JSONValue.writeString(s, to: &out)
        return out.replacingOccurrences(of: "\u{7F}", with: "\\u007F")
    }

    private static func fail(_ message: String) -> any Error {
        FileHandle.standardError.write(Data("pushtop config init: \(message)\n".utf8))
        return ExitCode.failure
    }
}
