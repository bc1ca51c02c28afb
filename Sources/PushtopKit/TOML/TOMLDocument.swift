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

    /// Parses a file's text into a ``TOMLNode/table(_:)``; a syntax error becomes the file's own error,
    /// `not valid TOML: line L, column C: …`.
    public static func parse<Failure: Error>(_ text: String, failure: (String) -> Failure) throws(Failure) -> TOMLNode {
        do {
            return try parse(text)
        } catch {
            throw failure("not valid TOML: \(error)")
        }
    }

    /// Parses a document into a ``TOMLNode/table(_:)``.
    public static func parse(_ text: String) throws(SyntaxError) -> TOMLNode {
        try checkTableHeaders(text)
        do {
            let table = try TOMLTable(string: text)
            return node(table)
        } catch let error as TOMLParseError {
            throw SyntaxError(
                message: error.description, line: error.source.begin.line,
                column: error.source.begin.column)
        } catch {
            throw SyntaxError(message: "\(error)", line: 0, column: 0)
        }
    }

    /// toml++ (inside TOMLKit) asserts, and aborts the process, on a table header whose name does not start with
    /// a bare-key character or a quote (`[é]`, `[!]`), on a bracket that closes the wrong thing (`[1, }`) and on a
    /// date with a `T` but no time (`1979-05-27T:07`), all found by fuzzing: refuse those before they get there.
    /// A small scan that knows strings, comments and nested values finds the headers (a `[` that starts a line
    /// outside any value).
    static func checkTableHeaders(_ text: String) throws(SyntaxError) {
        var scan = HeaderScan(scalars: Array(text.unicodeScalars))
        try scan.run()
    }

    /// ``checkTableHeaders(_:)``'s scan: where it is in the text, and what is open there.
    private struct HeaderScan {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1
        var lineStart = 0
        var open: [Unicode.Scalar] = []  // the [ and { of values not closed yet
        var inHeader = false
        var onlySpaceSoFar = true

        func at(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

        func starts(_ text: String) -> Bool {
            text.unicodeScalars.enumerated().allSatisfy { at($0.offset) == $0.element }
        }

        mutating func newline() {
            line += 1
            lineStart = index + 1
            onlySpaceSoFar = true
        }

        mutating func run() throws(SyntaxError) {
            while index < scalars.count {
                let c = scalars[index]
                if c == "\n" {
                    newline()
                    index += 1
                    continue
                }
                if c == "#" {
                    while index < scalars.count, scalars[index] != "\n" { index += 1 }
                    continue
                }
                if c == "\"" || c == "'" {
                    skipString(quote: c)
                    continue
                }
                if c == "[", open.isEmpty, !inHeader, onlySpaceSoFar {
                    inHeader = true
                    try checkHeaderName()
                } else if c == "T" || c == "t", isDateWithoutTime() {
                    // toml++ also asserts on a date with a `T` and no time after it (`1979-05-27T:07`).
                    throw SyntaxError(
                        message: "a date-time needs a time (HH:MM:SS) after its 'T'",
                        line: line, column: index - lineStart + 2)
                } else if c == "[" || c == "{" {
                    if !inHeader { open.append(c) }
                } else if c == "]" || c == "}" {
                    try close(c)
                }
                // toml++ skips a byte-order mark and Unicode spaces too: count any non-ASCII scalar as space here
                // (a line that starts with anything else non-ASCII is not TOML anyway).
                if c.isASCII && c != " " && c != "\t" && c != "\r" { onlySpaceSoFar = false }
                index += 1
            }
        }

        /// Moves past a string that opens at `index` with `quote` (basic or literal, one line or multi-line).
        mutating func skipString(quote c: Unicode.Scalar) {
            let multi = starts(String(repeating: String(c), count: 3))
            let delimiter = multi ? String(repeating: String(c), count: 3) : String(c)
            index += delimiter.unicodeScalars.count
            while index < scalars.count {
                if c == "\"", scalars[index] == "\\" {
                    index += 2
                    continue
                }
                if starts(delimiter) {
                    index += delimiter.unicodeScalars.count
                    break
                }
                if scalars[index] == "\n" {
                    if !multi { break }
                    newline()
                }
                index += 1
            }
            onlySpaceSoFar = false
        }

        /// Refuses a table header (its `[` or `[[` at `index`) whose name does not start with a bare-key character
        /// or a quote.
        func checkHeaderName() throws(SyntaxError) {
            var next = index + 1
            if next < scalars.count, scalars[next] == "[" { next += 1 }
            while next < scalars.count, scalars[next] == " " || scalars[next] == "\t" { next += 1 }
            let first = next < scalars.count ? scalars[next] : nil
            let allowed =
                first.map {
                    $0.isASCII
                        && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                            || "-_\"']".unicodeScalars.contains($0))
                } ?? false
            if !allowed {
                let found =
                    first.map { $0 == "\n" ? "the end of the line" : "'\(Character($0))'" } ?? "the end of the file"
                throw SyntaxError(
                    message: "a table name must start with a letter, a digit, '-', '_' or a quote, not \(found)",
                    line: line, column: next - lineStart + 1)
            }
        }

        /// Whether the `T` at `index` ends a date value (`YYYY-MM-DD`) and no digit follows it.
        func isDateWithoutTime() -> Bool {
            index >= 10 && !(at(1).map { ("0"..."9").contains($0) } ?? false)
                && TOMLDocument.isValuePosition(scalars, before: index - 10)
                && scalars[(index - 10)..<index].enumerated().allSatisfy({ offset, d in
                    offset == 4 || offset == 7 ? d == "-" : ("0"..."9").contains(d)
                })
        }

        /// A `]` or `}` at `index`: the end of a header, or of an open value (which it must match).
        mutating func close(_ c: Unicode.Scalar) throws(SyntaxError) {
            if inHeader && open.isEmpty {
                if c == "]", at(1) == "]" { index += 1 }
                inHeader = false
            } else if let last = open.last {
                // toml++ also asserts on `[1, }`: a bracket that closes the wrong thing.
                guard (last == "[") == (c == "]") else {
                    throw SyntaxError(
                        message: "'\(Character(c))' does not close the '\(Character(last))' before it",
                        line: line, column: index - lineStart + 1)
                }
                open.removeLast()
            }
        }
    }

    /// Whether a token starting at `start` is a value (after `=`, `,` or `[`) rather than a key such as
    /// `2024-01-01to`.
    private static func isValuePosition(_ scalars: [Unicode.Scalar], before start: Int) -> Bool {
        var i = start - 1
        while i >= 0, scalars[i] == " " || scalars[i] == "\t" { i -= 1 }
        return i >= 0 && (scalars[i] == "=" || scalars[i] == "," || scalars[i] == "[")
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
