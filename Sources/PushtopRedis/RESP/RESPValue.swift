import NIOCore

/// One RESP2 value, as Redis sends it: a reply, an element of an array reply, or a pub/sub push.
///
/// Bulk strings stay bytes (`ByteBuffer`, usually a slice of the read buffer: no copy), so binary payloads pass
/// through untouched; ``string`` decodes them as UTF-8 when a caller wants text.
public enum RESPValue: Sendable, Hashable {
    /// `+OK`: a short status line.
    case simpleString(String)
    /// `-ERR ...`: an error reply (the whole line, e.g. `"WRONGTYPE Operation against a key ..."`).
    case error(String)
    /// `:42`: a signed 64-bit integer.
    case integer(Int64)
    /// `$n` followed by n bytes, or `$-1` (`nil`: the null bulk string, e.g. GET of a missing key).
    case bulkString(ByteBuffer?)
    /// `*n` followed by n values, or `*-1` (`nil`: the null array, e.g. EXEC of an aborted transaction).
    case array([RESPValue]?)

    /// The null bulk string (`$-1`).
    public static let null = RESPValue.bulkString(nil)

    /// A bulk string holding `text` in UTF-8.
    public static func bulkString(_ text: String) -> RESPValue {
        .bulkString(ByteBuffer(string: text))
    }

    /// Whether this is the null bulk string or the null array.
    public var isNull: Bool {
        switch self {
        case .bulkString(nil), .array(nil): true
        default: false
        }
    }

    /// The text of a simple string or bulk string (bulk strings decoded as UTF-8, invalid sequences repaired);
    /// the decimal form of an integer; `nil` for anything else.
    public var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes?): String(buffer: bytes)
        case .integer(let value): String(value)
        default: nil
        }
    }

    /// The bytes of a bulk string or simple string; `nil` for anything else.
    public var bytes: ByteBuffer? {
        switch self {
        case .bulkString(let bytes?): bytes
        case .simpleString(let text): ByteBuffer(string: text)
        default: nil
        }
    }

    /// An integer reply, or a bulk or simple string that holds a decimal integer (`INCR` answers `:n`, `GET`
    /// of a counter answers `$1 5`).
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .simpleString(let text): Int64(text)
        case .bulkString(let bytes?): Int64(String(buffer: bytes))
        default: nil
        }
    }

    /// The elements of a non-null array; `nil` for anything else.
    public var array: [RESPValue]? {
        if case .array(let values?) = self { return values }
        return nil
    }

    /// The message of an error reply; `nil` for anything else.
    public var errorMessage: String? {
        if case .error(let message) = self { return message }
        return nil
    }
}

extension RESPValue: CustomStringConvertible {
    /// A short, readable form for logs and test failures (bulk strings shown as text when printable, long values
    /// cut).
    public var description: String {
        switch self {
        case .simpleString(let text): return "+\(text)"
        case .error(let message): return "-\(message)"
        case .integer(let value): return ":\(value)"
        case .bulkString(nil): return "$nil"
        case .bulkString(let bytes?):
            let text = String(buffer: bytes)
            let shown = text.count > 80 ? String(text.prefix(80)) + "…(\(bytes.readableBytes) bytes)" : text
            return "$\"\(shown)\""
        case .array(nil): return "*nil"
        case .array(let values?): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }
}
