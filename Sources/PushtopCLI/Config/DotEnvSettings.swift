import PushtopConfig
/// The connection settings an app's `.env` holds, read through the conventions users already have: Laravel
/// Reverb's `REVERB_*`, Laravel's Pusher `PUSHER_*`, soketi's `SOKETI_DEFAULT_APP_*`, and the front end's
/// `VITE_`/`MIX_` copies. Each setting remembers the key and line it came from.
public struct DotEnvSettings: Sendable, Equatable {
    /// Which convention the file follows.
    public enum Convention: String, Sendable {
        case reverb = "Reverb"
        case pusher = "Pusher"
        case soketi = "soketi"
    }

    /// The settings as a profile (key, secret, app id, host, port, tls, cluster).
    public var profile = Profile()
    public var convention: Convention
    /// The profile field's name (`key`, `secret`, `app_id`, `host`, `port`, `tls`, `cluster`) and the file
    /// entry it came from.
    public var sources: [String: DotEnvFile.Entry] = [:]
    /// Settings filled in by the convention rather than the file (soketi's host), with why.
    public var assumed: [String: String] = [:]
    /// The file's path.
    public var path: String

    /// The fields in the order messages list them.
    public static let fields = ["app_id", "key", "secret", "host", "port", "tls", "cluster"]

    /// `KEY (line N)` for a field read from the file, else `nil`.
    public func source(of field: String) -> String? {
        sources[field].map { "\($0.key) (line \($0.line))" }
    }

    /// Reads the settings from a parsed file. Throws when no convention's app key is there, or a value is
    /// malformed (a port that is not a number, a scheme that is not http or https), naming the key and line.
    public static func read(_ file: DotEnvFile) throws(ConfigError) -> DotEnvSettings {
        let convention = try detect(file)
        var s = DotEnvSettings(convention: convention, path: file.path)
        // The server's own variables first, then the front end's copies of them.
        let prefixes: [String]
        switch convention {
        case .reverb: prefixes = ["REVERB_", "VITE_REVERB_", "MIX_REVERB_"]
        case .pusher: prefixes = ["PUSHER_", "VITE_PUSHER_", "MIX_PUSHER_"]
        case .soketi: prefixes = ["SOKETI_DEFAULT_APP_", "SOKETI_"]
        }
        func first(_ names: [String]) -> DotEnvFile.Entry? {
            for prefix in prefixes {
                for name in names {
                    if let e = file.entry(prefix + name), !e.value.isEmpty { return e }
                }
            }
            return nil
        }
        if let e = first(["APP_KEY", "KEY"]) { s.profile.key = e.value; s.sources["key"] = e }
        if let e = first(["APP_SECRET", "SECRET"]) { s.profile.secret = e.value; s.sources["secret"] = e }
        if let e = first(["APP_ID", "ID"]) { s.profile.appID = e.value; s.sources["app_id"] = e }
        if convention != .soketi {
            if let e = first(["HOST"]) { s.profile.host = e.value; s.sources["host"] = e }
            if let e = first(["PORT"]) { s.profile.port = try port(e, file: file); s.sources["port"] = e }
            if let e = first(["SCHEME"]) {
                switch e.value.lowercased() {
                case "https", "wss": s.profile.tls = true
                case "http", "ws": s.profile.tls = false
                default:
                    throw ConfigError(
                        source: "\(file.path):\(e.line)", key: e.key,
                        message: "expected http or https, found '\(e.value)'")
                }
                s.sources["tls"] = e
            }
            if let e = first(["APP_CLUSTER", "CLUSTER"]) { s.profile.cluster = e.value; s.sources["cluster"] = e }
            if let e = first(["USE_TLS", "FORCE_TLS"]), s.profile.tls == nil {
                s.profile.tls = ["true", "1", "yes", "on"].contains(e.value.lowercased())
                s.sources["tls"] = e
            }
        } else {
            try s.readSoketiServer(file)
        }
        return s
    }

    /// soketi's host, port and TLS: it listens on all interfaces, plain HTTP, port 6001 unless SOKETI_PORT says
    /// otherwise.
    private mutating func readSoketiServer(_ file: DotEnvFile) throws(ConfigError) {
        if let e = file.entry("SOKETI_PORT"), !e.value.isEmpty {
            profile.port = try Self.port(e, file: file)
            sources["port"] = e
        } else {
            profile.port = 6001
            assumed["port"] = "soketi's default"
        }
        profile.host = "127.0.0.1"
        assumed["host"] = "soketi listens on all interfaces"
        if file.entry("SOKETI_SSL_CERT").map({ !$0.value.isEmpty }) ?? false {
            profile.tls = true
            sources["tls"] = file.entry("SOKETI_SSL_CERT")
        } else {
            profile.tls = false
            assumed["tls"] = "no SOKETI_SSL_CERT"
        }
    }

    /// Which convention: `BROADCAST_CONNECTION` (or Laravel's older `BROADCAST_DRIVER`) when it names one,
    /// else the first whose app key the file sets.
    static func detect(_ file: DotEnvFile) throws(ConfigError) -> Convention {
        let hasKey: (Convention) -> Bool = { c in
            let names: [String]
            switch c {
            case .reverb: names = ["REVERB_APP_KEY", "VITE_REVERB_APP_KEY", "MIX_REVERB_APP_KEY"]
            case .pusher: names = ["PUSHER_APP_KEY", "VITE_PUSHER_APP_KEY", "MIX_PUSHER_APP_KEY"]
            case .soketi: names = ["SOKETI_DEFAULT_APP_KEY"]
            }
            return names.contains { !(file.value($0) ?? "").isEmpty }
        }
        for name in ["BROADCAST_CONNECTION", "BROADCAST_DRIVER"] {
            guard let e = file.entry(name) else { continue }
            let named: Convention? = e.value == "reverb" ? .reverb : e.value == "pusher" ? .pusher : nil
            if let named {
                guard hasKey(named) else {
                    let key = named == .reverb ? "REVERB_APP_KEY" : "PUSHER_APP_KEY"
                    let set = file.entry(key)
                    throw ConfigError(
                        source: "\(file.path):\(set?.line ?? e.line)", key: key,
                        message: set == nil ? "missing (\(name)=\(e.value) on line \(e.line) needs it)" : "is empty")
                }
                return named
            }
        }
        for c in [Convention.reverb, .pusher, .soketi] where hasKey(c) { return c }
        // Name the key most likely meant: one that is there but empty, else the usual ones.
        for key in ["REVERB_APP_KEY", "PUSHER_APP_KEY", "SOKETI_DEFAULT_APP_KEY"] {
            if let e = file.entry(key) {
                throw ConfigError(source: "\(file.path):\(e.line)", key: key, message: "is empty")
            }
        }
        throw ConfigError(
            source: file.path,
            message:
                "no app key: expected REVERB_APP_KEY, PUSHER_APP_KEY or SOKETI_DEFAULT_APP_KEY (or a VITE_/MIX_ copy)")
    }

    private static func port(_ e: DotEnvFile.Entry, file: DotEnvFile) throws(ConfigError) -> Int {
        guard let n = Int(e.value.trimmingCharacters(in: " ")), (1...65535).contains(n) else {
            throw ConfigError(
                source: "\(file.path):\(e.line)", key: e.key, message: "expected a port 1-65535, found '\(e.value)'")
        }
        return n
    }
}

extension String {
    fileprivate func trimmingCharacters(in c: Character) -> String {
        String(drop { $0 == c }.reversed().drop { $0 == c }.reversed())
    }
}
