import PusherProtocol
import TOMLKit

/// A TOML document read into plain values (tables as ordered key lists), so that the rest of the code does
/// not hold TOMLKit's reference types.
public indirect enum TOMLNode: Sendable, Hashable {
    case table([(String, TOMLNode)])
    case array([TOMLNode])
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    /// Dates and times, kept as their TOML text.
    case other(String)

    /// A short type name for error messages ("a string", "an integer"...).
    public var typeName: String {
        switch self {
        case .table: return "a table"
        case .array: return "an array"
        case .string: return "a string"
        case .integer: return "an integer"
        case .double: return "a number"
        case .bool: return "a boolean"
        case .other: return "a date/time"
        }
    }

    /// The entries of a table, in file order; `nil` for other values.
    public var tableEntries: [(String, TOMLNode)]? {
        if case .table(let entries) = self { return entries }
        return nil
    }

    /// The value for `key` in a table.
    public subscript(key: String) -> TOMLNode? {
        tableEntries?.first { $0.0 == key }?.1
    }

    /// The value as JSON (tables become objects).
    public var jsonValue: JSONValue {
        switch self {
        case .table(let entries):
            return .object(Dictionary(entries.map { ($0.0, $0.1.jsonValue) }, uniquingKeysWith: { _, b in b }))
        case .array(let items): return .array(items.map(\.jsonValue))
        case .string(let s): return .string(s)
        case .integer(let i): return .number(Double(i))
        case .double(let d): return .number(d)
        case .bool(let b): return .bool(b)
        case .other(let s): return .string(s)
        }
    }

    public static func == (lhs: TOMLNode, rhs: TOMLNode) -> Bool {
        switch (lhs, rhs) {
        case (.table(let a), .table(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.array(let a), .array(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.other(let a), .other(let b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeName)
    }
}

/// Parses TOML text with TOMLKit.
public enum TOMLDocument {
    /// A TOML syntax error with its position.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var line: Int
        public var column: Int

        public var description: String { "line \(line), column \(column): \(message)" }
    }

    /// Parses a document into a ``TOMLNode/table(_:)``.
    public static func parse(_ text: String) throws(SyntaxError) -> TOMLNode {
        try checkTableHeaders(text)
        do {
            let table = try TOMLTable(string: text)
            return node(table)
        } catch let error as TOMLParseError {
            throw SyntaxError(message: error.description, line: error.source.begin.line,
                column: error.source.begin.column)
        } catch {
            throw SyntaxError(message: "\(error)", line: 0, column: 0)
        }
    }

    /// toml++ (inside TOMLKit) asserts, and aborts the process, on a table header whose name starts with a
    /// non-ASCII character (`[é]`, found by fuzzing): refuse such a header before it gets there.
    static func checkTableHeaders(_ text: String) throws(SyntaxError) {
        var inMultilineString = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // A header-looking line inside a multi-line string is text, not a header.
            let delimiters = line.ranges(of: "\"\"\"").count + line.ranges(of: "'''").count
            let wasInString = inMultilineString
            if delimiters % 2 == 1 { inMultilineString.toggle() }
            guard !wasInString else { continue }
            var rest = line.drop(while: { $0 == " " || $0 == "\t" })
            guard rest.first == "[" else { continue }
            rest = rest.dropFirst()
            if rest.first == "[" { rest = rest.dropFirst() }
            rest = rest.drop(while: \.isWhitespace)
            if let first = rest.first, !first.isASCII {
                throw SyntaxError(
                    message: "a table name must start with a letter, a digit, '-', '_' or a quote, not '\(first)'",
                    line: index + 1, column: line.distance(from: line.startIndex, to: rest.startIndex) + 1)
            }
        }
    }

    private static func node(_ value: any TOMLValueConvertible) -> TOMLNode {
        switch value.type {
        case .table:
            let table = value.table!
            // TOMLKit's key order is not the file's; sort for stable output.
            return .table(table.keys.sorted().map { ($0, node(table[$0]!)) })
        case .array:
            let array = value.array!
            return .array((0..<array.count).map { node(array[$0]) })
        case .string: return .string(value.string ?? "")
        case .int: return .integer(value.int ?? 0)
        case .double: return .double(value.double ?? 0)
        case .bool: return .bool(value.bool ?? false)
        case .date, .time, .dateTime: return .other("\(value.tomlValue)")
        }
    }
}
