/// Why bytes from a Redis server are not valid RESP2, or are beyond the decoder's limits.
///
/// Any of these means the stream cannot be trusted from that point on: the connection that read it is closed
/// (and, for a client, opened again).
public enum RESPDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The first byte of a value is none of `+ - : $ *`.
    case unknownType(byte: UInt8)
    /// A `\r` not followed by `\n`.
    case missingLineFeed
    /// A line (simple string, error, integer or length) longer than the limit without its `\r\n`.
    case lineTooLong(limit: Int)
    /// An integer or length that is not a decimal number that fits 64 bits.
    case invalidInteger(String)
    /// A negative length other than -1.
    case invalidLength(Int64)
    /// A bulk string longer than the limit.
    case bulkTooLong(length: Int64, limit: Int)
    /// An array with more elements than the limit.
    case arrayTooLong(count: Int64, limit: Int)
    /// Arrays nested deeper than the limit.
    case tooDeep(limit: Int)
    /// A bulk string's bytes not followed by `\r\n`.
    case bulkNotTerminated

    public var description: String {
        switch self {
        case .unknownType(let byte):
            let shown =
                (32..<127).contains(byte) ? "'\(Character(UnicodeScalar(byte)))'" : "0x\(String(byte, radix: 16))"
            return "invalid RESP: unknown type byte \(shown)"
        case .missingLineFeed: return "invalid RESP: \\r not followed by \\n"
        case .lineTooLong(let limit): return "invalid RESP: a line longer than \(limit) bytes"
        case .invalidInteger(let text): return "invalid RESP: \"\(text.prefix(40))\" is not a 64-bit integer"
        case .invalidLength(let length): return "invalid RESP: negative length \(length)"
        case .bulkTooLong(let length, let limit):
            return "RESP bulk string of \(length) bytes is over the limit of \(limit) bytes"
        case .arrayTooLong(let count, let limit):
            return "RESP array of \(count) elements is over the limit of \(limit) elements"
        case .tooDeep(let limit): return "RESP arrays nested deeper than \(limit) levels"
        case .bulkNotTerminated: return "invalid RESP: bulk string not followed by \\r\\n"
        }
    }
}
