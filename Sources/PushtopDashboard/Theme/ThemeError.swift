/// Why a theme could not be used, in words a person can act on: which file, where, and what was expected.
public struct ThemeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The theme's file (or name, for a theme that was not found).
    public var source: String
    public var message: String

    public init(source: String, message: String) {
        self.source = source
        self.message = message
    }

    public var description: String { "theme \(source): \(message)" }
}
