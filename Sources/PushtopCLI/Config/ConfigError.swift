/// A problem in the config file or the environment: the file, the key and what was expected.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The config file's path, or `environment`.
    public var source: String
    /// The key (`profiles.prod.port`), when the problem is one value.
    public var key: String?
    public var message: String

    public var description: String {
        if let key { return "\(source): \(key): \(message)" }
        return "\(source): \(message)"
    }
}
