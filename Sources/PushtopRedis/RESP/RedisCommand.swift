import NIOCore

/// One Redis command: its name and arguments, sent as a RESP2 array of bulk strings.
///
/// ```swift
/// RedisCommand("SET", "presence:ch", .bytes(payload), "PX", 30_000)
/// ```
///
/// Arguments are text, bytes or integers; bytes go out untouched (binary-safe).
public struct RedisCommand: Sendable, Hashable {
    /// One argument of a command.
    public enum Argument: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        /// Text, sent as its UTF-8 bytes.
        case string(String)
        /// Bytes, sent as they are.
        case bytes(ByteBuffer)
        /// An integer, sent in decimal.
        case integer(Int)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int) { self = .integer(value) }
    }

    /// The command's name followed by its arguments.
    public var arguments: [Argument]

    /// A command named `name` with `arguments`.
    public init(_ name: String, _ arguments: Argument...) {
        self.init(name, arguments: arguments)
    }

    /// A command named `name` with `arguments`.
    public init(_ name: String, arguments: [Argument]) {
        self.arguments = [.string(name)] + arguments
    }

    /// A command given as its name and arguments in one list (`["SET", "k", "v"]`).
    public init(arguments: [Argument]) {
        self.arguments = arguments
    }

    /// The command's name, upper-cased (empty for an empty command).
    public var name: String {
        guard case .string(let name)? = arguments.first else { return "" }
        return name.uppercased()
    }
}

extension RedisCommand: CustomStringConvertible {
    /// The command for logs: its name and keys, never the arguments of `AUTH` (secrets) nor long values.
    public var description: String {
        let name = self.name
        if name == "AUTH" || name == "HELLO" { return "\(name) <redacted>" }
        let shown = arguments.dropFirst().prefix(4).map { argument -> String in
            switch argument {
            case .string(let text): text.count > 40 ? String(text.prefix(40)) + "…" : text
            case .bytes(let bytes): "<\(bytes.readableBytes) bytes>"
            case .integer(let value): String(value)
            }
        }
        let more = arguments.count > 5 ? " …(+\(arguments.count - 5))" : ""
        return ([name] + shown).joined(separator: " ") + more
    }
}
