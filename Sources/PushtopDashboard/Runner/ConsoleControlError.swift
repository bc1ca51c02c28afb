/// Why the console could not have a fault injected, in words the footer shows as they are.
public struct ConsoleControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong and, where it helps, what to do instead.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
