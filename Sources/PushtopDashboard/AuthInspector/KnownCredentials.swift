/// An app's key and secret, when the dashboard knows them (flags, environment, profile, the local demo): the
/// auth inspector recomputes signatures with them. Never drawn, logged or recorded.
public struct KnownCredentials: Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var secret: String
    /// The app id, for the HTTP API (channel browser, presence check).
    public var appID: String?

    public init(key: String, secret: String, appID: String? = nil) {
        self.key = key
        self.secret = secret
        self.appID = appID
    }

    /// Never the secret.
    public var description: String { "KnownCredentials(key: \(key), secret: <redacted>)" }
}
