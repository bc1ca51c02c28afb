/// A problem in the config file or the environment: the file, the key and what was expected.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The config file's path, or `environment`.
    public var source: String
    /// The key (`profiles.prod.port`), when the problem is one value.
    public var key: String?
    public var message: String
    /// The line of the file the problem is on, when it is known (`apps.toml:12: apps[1].key: …`).
    public var line: Int?

    public init(source: String, key: String? = nil, message: String, line: Int? = nil) {
        self.source = source
        self.key = key
        self.message = message
        self.line = line
    }

    public var description: String {
        let place = line.map { "\(source):\($0)" } ?? source
        if let key { return "\(place): \(key): \(message)" }
        return "\(place): \(message)"
    }
}
