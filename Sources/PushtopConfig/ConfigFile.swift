import PusherProtocol
import PushtopKit

/// The config file: `$XDG_CONFIG_HOME/pushtop/config.toml` or `~/.config/pushtop/config.toml`.
///
/// ```toml
/// # defaults for every profile
/// theme = "solarized"
/// profile = "staging"          # the profile used without --profile (optional)
/// open = ["staging", "local"]  # the dashboard opens these apps at once without --profile (optional)
///
/// [profiles.staging]
/// key = "abc123"
/// cluster = "eu"
/// auth_endpoint = "https://staging.example.com/pusher/auth"
/// auth_headers = { Authorization = "Bearer …" }
/// channels = ["orders", "presence-ops"]
///
/// [profiles.local]
/// key = "app-key"
/// host = "127.0.0.1"
/// port = 6001
/// tls = false
/// secret = "app-secret"
/// user_id = "dev"
/// user_info = { name = "Dev" }
/// ```
public struct ConfigFile: Sendable, Hashable {
    public var path: String
    /// Top-level keys: the defaults under every profile.
    public var defaults: Profile
    public var profiles: [String: Profile]
    /// The profile to use when none is asked for (`profile = "NAME"` at the top level).
    public var defaultProfile: String?
    /// The profiles the dashboard opens at once when none is asked for (`open = ["a", "b"]` at the top
    /// level): one connection each.
    public var open: [String] = []

    /// The config file's path for an environment (whether or not it exists).
    public static func path(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/pushtop/config.toml" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/pushtop/config.toml" }
        return nil
    }

    /// Reads the config file; `nil` when there is none.
    public static func load(environment: [String: String]) throws(ConfigError) -> ConfigFile? {
        guard let path = path(environment: environment), let text = TextFile.read(path) else { return nil }
        return try parse(text, path: path)
    }

    /// Parses a config file's text; `path` names it in errors.
    public static func parse(_ text: String, path: String) throws(ConfigError) -> ConfigFile {
        let root = try TOMLDocument.parse(text) { ConfigError(source: path, message: $0) }
        var file = ConfigFile(path: path, defaults: Profile(), profiles: [:], defaultProfile: nil)
        var topLevel: [(String, TOMLNode)] = []
        for (key, value) in root.tableEntries ?? [] {
            switch key {
            case "profiles":
                guard let tables = value.tableEntries else {
                    throw ConfigError(
                        source: path, key: key, message: "expected tables ([profiles.NAME]), found \(value.typeName)")
                }
                for (name, table) in tables {
                    guard table.tableEntries != nil else {
                        throw ConfigError(
                            source: path, key: "profiles.\(name)",
                            message: "expected a table ([profiles.\(name)]), found \(table.typeName)")
                    }
                    file.profiles[name] = try ProfileReader(source: path, prefix: "profiles.\(name).")
                        .read(table.tableEntries!)
                }
            case "open":
                guard case .array(let items) = value else {
                    throw ConfigError(
                        source: path, key: key, message: "expected an array of profile names, found \(value.typeName)")
                }
                for (i, item) in items.enumerated() {
                    guard case .string(let name) = item else {
                        throw ConfigError(
                            source: path, key: "open[\(i)]",
                            message: "expected a profile name (string), found \(item.typeName)")
                    }
                    guard !file.open.contains(name) else {
                        throw ConfigError(source: path, key: "open[\(i)]", message: "'\(name)' is listed twice")
                    }
                    file.open.append(name)
                }
            case "profile":
                guard case .string(let name) = value else {
                    throw ConfigError(
                        source: path, key: key, message: "expected a profile name (string), found \(value.typeName)")
                }
                file.defaultProfile = name
            default:
                topLevel.append((key, value))
            }
        }
        file.defaults = try ProfileReader(source: path, prefix: "").read(topLevel)
        if let name = file.defaultProfile, file.profiles[name] == nil {
            throw ConfigError(source: path, key: "profile", message: "no [profiles.\(name)] table")
        }
        for (i, name) in file.open.enumerated() where file.profiles[name] == nil {
            throw ConfigError(source: path, key: "open[\(i)]", message: "no [profiles.\(name)] table")
        }
        return file
    }

    /// The settings for `name` (or the default profile): the profile over the top-level defaults.
    /// - Throws: when `name` is not in the file (the message lists the profiles there are).
    public func profile(named name: String?) throws(ConfigError) -> Profile {
        guard let name = name ?? defaultProfile else { return defaults }
        guard let profile = profiles[name] else {
            let known = profiles.keys.sorted()
            throw ConfigError(
                source: path,
                message: "no profile '\(name)'"
                    + (known.isEmpty ? " (the file defines none)" : " (profiles: \(known.joined(separator: ", ")))"))
        }
        return profile.merged(over: defaults)
    }
}

/// Reads the keys of one profile table, checking types.
struct ProfileReader {
    var source: String
    var prefix: String

    static let knownKeys = [
        "key", "cluster", "host", "port", "tls", "auth_endpoint", "auth_headers", "auth_params",
        "secret", "app_id", "user_id", "user_info", "activity_timeout", "pong_timeout", "reconnect", "max_retries",
        "min_delay", "max_delay", "theme", "channels", "user_auth_endpoint", "sign_in", "watchlist", "ca_file", "nodes",
    ]

    func read(_ entries: [(String, TOMLNode)]) throws(ConfigError) -> Profile {
        var p = Profile()
        for (key, value) in entries {
            switch key {
            case "key": p.key = try string(key, value)
            case "cluster": p.cluster = try string(key, value)
            case "host": p.host = try string(key, value)
            case "port": p.port = try port(key, value)
            case "tls": p.tls = try bool(key, value)
            case "auth_endpoint": p.authEndpoint = try string(key, value)
            case "auth_headers": p.authHeaders = try stringTable(key, value)
            case "auth_params": p.authParams = try stringTable(key, value)
            case "secret": p.secret = try string(key, value)
            case "app_id": p.appID = try string(key, value)
            case "user_id": p.userID = try string(key, value)
            case "user_info": p.userInfo = try userInfo(key, value)
            case "activity_timeout": p.activityTimeout = try seconds(key, value)
            case "pong_timeout": p.pongTimeout = try seconds(key, value)
            case "reconnect": p.reconnect = try reconnect(key, value)
            case "max_retries": p.maxRetries = try maxRetries(key, value)
            case "min_delay": p.minDelay = try seconds(key, value)
            case "max_delay": p.maxDelay = try seconds(key, value)
            case "theme": p.theme = try string(key, value)
            case "channels": p.channels = try channels(key, value)
            case "user_auth_endpoint": p.userAuthEndpoint = try string(key, value)
            case "sign_in": p.signIn = try bool(key, value)
            case "ca_file": p.caFile = try string(key, value)
            case "nodes": p.nodes = try nodes(key, value)
            case "watchlist": p.watchlist = try watchlist(key, value)
            default:
                throw error(key, "unknown key (known: \(Self.knownKeys.joined(separator: ", ")))")
            }
        }
        if let min = p.minDelay, let max = p.maxDelay, min > max {
            throw error("min_delay", "is larger than max_delay (\(min) > \(max))")
        }
        return p
    }

    private func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(source: source, key: prefix + key, message: message)
    }

    private func port(_ key: String, _ value: TOMLNode) throws(ConfigError) -> Int {
        let port = try integer(key, value)
        guard (1...65535).contains(port) else { throw error(key, "expected a port 1-65535, found \(port)") }
        return port
    }

    /// A table, or a JSON object in a string.
    private func userInfo(_ key: String, _ value: TOMLNode) throws(ConfigError) -> JSONValue {
        switch value {
        case .table: return value.jsonValue
        case .string(let text):
            guard let json = JSONValue.parseIfJSON(text), json.objectValue != nil else {
                throw error(
                    key,
                    "expected a table or a JSON object in a string, found a string that is not a JSON object")
            }
            return json
        default: throw error(key, "expected a table or a JSON object string, found \(value.typeName)")
        }
    }

    private func reconnect(_ key: String, _ value: TOMLNode) throws(ConfigError) -> String {
        let policy = try string(key, value)
        guard ["exponential", "linear", "none"].contains(policy) else {
            throw error(key, "expected exponential, linear or none, found '\(policy)'")
        }
        return policy
    }

    private func maxRetries(_ key: String, _ value: TOMLNode) throws(ConfigError) -> Int {
        let n = try integer(key, value)
        guard n >= 0 else { throw error(key, "expected 0 or more, found \(n)") }
        return n
    }

    private func channels(_ key: String, _ value: TOMLNode) throws(ConfigError) -> [String] {
        try strings(key, value, arrayOf: "channel names", item: "a channel name (string)") { name in
            do {
                try ChannelName.validate(name)
                return nil
            } catch {
                return String(describing: error)
            }
        }
    }

    /// `HOST:PORT` strings, each once, in their normal form.
    private func nodes(_ key: String, _ value: TOMLNode) throws(ConfigError) -> [String] {
        var nodes: [String] = []
        _ = try strings(key, value, arrayOf: "\"HOST:PORT\" strings", item: "\"HOST:PORT\"") { text in
            guard let node = NodeAddress(text) else { return NodeAddress.problem(text) }
            guard !nodes.contains(node.description) else { return "'\(text)' is listed twice" }
            nodes.append(node.description)
            return nil
        }
        return nodes
    }

    private func watchlist(_ key: String, _ value: TOMLNode) throws(ConfigError) -> [String] {
        let item = "a user id (A-Z a-z 0-9 _ - = @ , . ;)"
        return try strings(key, value, arrayOf: "user ids", item: item) { id in
            ChannelName.isValid(id) ? nil : "expected \(item), found string"
        }
    }

    /// An array of strings, each checked by `check` (why an item is refused, or `nil`); errors name the array
    /// (`expected an array of WHAT`) or the item (`key[i]`: `expected ITEM`).
    private func strings(
        _ key: String, _ value: TOMLNode, arrayOf what: String, item: String,
        check: (String) -> String?
    ) throws(ConfigError) -> [String] {
        guard case .array(let items) = value else {
            throw error(key, "expected an array of \(what), found \(value.typeName)")
        }
        var texts: [String] = []
        for (i, node) in items.enumerated() {
            guard case .string(let text) = node else {
                throw error("\(key)[\(i)]", "expected \(item), found \(node.typeName)")
            }
            if let problem = check(text) { throw error("\(key)[\(i)]", problem) }
            texts.append(text)
        }
        return texts
    }

    private func string(_ key: String, _ value: TOMLNode) throws(ConfigError) -> String {
        guard case .string(let s) = value else { throw error(key, "expected a string, found \(value.typeName)") }
        return s
    }

    private func integer(_ key: String, _ value: TOMLNode) throws(ConfigError) -> Int {
        guard case .integer(let n) = value else { throw error(key, "expected an integer, found \(value.typeName)") }
        return n
    }

    private func bool(_ key: String, _ value: TOMLNode) throws(ConfigError) -> Bool {
        guard case .bool(let b) = value else { throw error(key, "expected true or false, found \(value.typeName)") }
        return b
    }

    private func seconds(_ key: String, _ value: TOMLNode) throws(ConfigError) -> Double {
        let v: Double
        switch value {
        case .integer(let n): v = Double(n)
        case .double(let d): v = d
        default: throw error(key, "expected a number of seconds, found \(value.typeName)")
        }
        guard v >= 0, v.isFinite else { throw error(key, "expected a number of seconds ≥ 0, found \(v)") }
        return v
    }

    private func stringTable(_ key: String, _ value: TOMLNode) throws(ConfigError) -> [String: String] {
        guard let entries = value.tableEntries else {
            throw error(key, "expected a table of strings ({ Name = \"value\" }), found \(value.typeName)")
        }
        var out: [String: String] = [:]
        for (k, v) in entries {
            guard case .string(let s) = v else { throw error("\(key).\(k)", "expected a string, found \(v.typeName)") }
            out[k] = s
        }
        return out
    }
}
