import PusherProtocol
import PushtopConfig

extension Profile {
    /// The environment variables read, and the profile field each sets.
    public static let environmentVariables = [
        "PUSHTOP_KEY", "PUSHTOP_CLUSTER", "PUSHTOP_HOST", "PUSHTOP_PORT",
        "PUSHTOP_TLS", "PUSHTOP_AUTH_ENDPOINT", "PUSHTOP_SECRET", "PUSHTOP_USER_ID", "PUSHTOP_USER_INFO",
        "PUSHTOP_THEME",
    ]

    /// Settings from `PUSHTOP_*` environment variables (they win over the config file; options win over them).
    /// `PUSHTOP_PROFILE` picks the profile (see ``ConfigFile/profile(named:)``).
    public static func fromEnvironment(_ env: [String: String]) throws(ConfigError) -> Profile {
        func value(_ name: String) -> String? {
            guard let v = env[name], !v.isEmpty else { return nil }
            return v
        }
        var p = Profile()
        p.key = value("PUSHTOP_KEY")
        p.cluster = value("PUSHTOP_CLUSTER")
        p.host = value("PUSHTOP_HOST")
        if let port = value("PUSHTOP_PORT") {
            guard let n = Int(port), (1...65535).contains(n) else {
                throw ConfigError(
                    source: "environment", key: "PUSHTOP_PORT", message: "expected a port 1-65535, found '\(port)'")
            }
            p.port = n
        }
        if let tls = value("PUSHTOP_TLS") {
            switch tls.lowercased() {
            case "1", "true", "yes", "on": p.tls = true
            case "0", "false", "no", "off": p.tls = false
            default:
                throw ConfigError(
                    source: "environment", key: "PUSHTOP_TLS", message: "expected true or false, found '\(tls)'")
            }
        }
        p.authEndpoint = value("PUSHTOP_AUTH_ENDPOINT")
        p.secret = value("PUSHTOP_SECRET")
        p.userID = value("PUSHTOP_USER_ID")
        if let info = value("PUSHTOP_USER_INFO") {
            guard let json = JSONValue.parseIfJSON(info), json.objectValue != nil else {
                throw ConfigError(source: "environment", key: "PUSHTOP_USER_INFO", message: "expected a JSON object")
            }
            p.userInfo = json
        }
        p.theme = value("PUSHTOP_THEME")
        return p
    }
}
