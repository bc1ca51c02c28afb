/// Finds the fields of an HTTP API publish body (`POST /apps/{id}/events`) in its bytes, checking everything else it
/// passes over, without a `String` of the body or a ``JSONValue`` tree.
///
/// `nil` means "not the plain case": the caller falls back to the full parser, which decides and names the error.
/// So this only has to be right about what it accepts, and it accepts only bodies whose fields the full parser
/// reads alike: `name`, `channel`, `socket_id` and `info` as strings, `channels` as an array of strings, `data` as
/// a string or `null`, unknown fields of any kind (skipped); a field given twice keeps its last value, as a parsed
/// object does. An escaped key, `data` of another type, a mistyped field or malformed JSON is the parser's.
package struct PublishBodyScanner {
    /// The fields of a plain publish body; `nil` where the body does not have the field (or has `data: null`).
    package struct Fields: Equatable, Sendable {
        package var name: String?
        package var channel: String?
        package var channels: [String]?
        package var data: String?
        package var socketID: String?
        package var info: String?
    }

    private var lexer: JSONLexer
    /// Containers deeper than this in unknown fields go to the full parser.
    private static let maxDepth = 64

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        lexer = JSONLexer(bytes)
    }

    /// The fields of `bytes` (UTF-8, checked by the caller), or `nil` when the full parser must judge them.
    package static func scan(_ bytes: UnsafeRawBufferPointer) -> Fields? {
        var scanner = PublishBodyScanner(bytes: bytes.assumingMemoryBound(to: UInt8.self))
        return scanner.scanBody()
    }

    private mutating func scanBody() -> Fields? {
        var fields = Fields()
        lexer.skipWhitespace()
        guard lexer.at(UInt8(ascii: "{")) else { return nil }
        if lexer.openContainer(closing: UInt8(ascii: "}")) { return finish(fields) }
        while true {
            guard let key = lexer.scanPlainKey() else { return nil }
            guard scanField(key, into: &fields) else { return nil }
            guard let end = lexer.skipSeparator(closing: UInt8(ascii: "}")) else { return nil }
            if end { return finish(fields) }
        }
    }

    /// Reads the value of the field named by `key`; `false` when the full parser must judge it.
    private mutating func scanField(_ key: JSONLexer.StringToken, into fields: inout Fields) -> Bool {
        switch key.end - key.start {
        case 4 where lexer.matches(key, "name"): return scanString(into: &fields.name)
        case 4 where lexer.matches(key, "info"): return scanString(into: &fields.info)
        case 7 where lexer.matches(key, "channel"): return scanString(into: &fields.channel)
        case 9 where lexer.matches(key, "socket_id"): return scanString(into: &fields.socketID)
        case 4 where lexer.matches(key, "data"):
            guard lexer.at(UInt8(ascii: "n")) else { return scanString(into: &fields.data) }
            fields.data = nil
            return (try? lexer.expectLiteral("null")) != nil
        case 8 where lexer.matches(key, "channels"):
            fields.channels = scanStrings()
            return fields.channels != nil
        default:
            return lexer.skipValue(maxDepth: Self.maxDepth - 1)
        }
    }

    private mutating func finish(_ fields: Fields) -> Fields? {
        lexer.skipWhitespace()
        return lexer.isAtEnd ? fields : nil
    }

    private mutating func scanString() -> String? {
        guard lexer.at(UInt8(ascii: "\"")), let token = try? lexer.scanString() else { return nil }
        return lexer.string(token)
    }

    /// A string into `slot`; `false` for anything else.
    private mutating func scanString(into slot: inout String?) -> Bool {
        slot = scanString()
        return slot != nil
    }

    /// An array of strings, or `nil` for anything else.
    private mutating func scanStrings() -> [String]? {
        guard lexer.at(UInt8(ascii: "[")) else { return nil }
        var strings: [String] = []
        if lexer.openContainer(closing: UInt8(ascii: "]")) { return strings }
        while true {
            lexer.skipWhitespace()
            guard let value = scanString() else { return nil }
            strings.append(value)
            guard let end = lexer.skipSeparator(closing: UInt8(ascii: "]")) else { return nil }
            if end { return strings }
        }
    }
}
