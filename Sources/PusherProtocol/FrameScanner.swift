/// Finds the fields of a Pusher frame's outer object in its bytes, checking everything else it passes over.
///
/// `nil` means "not the plain case": the caller (``PusherFrameDecoder``) falls back to the full parser, which
/// decides (and names the error). So this only has to be right about what it accepts; the tokens are
/// ``JSONLexer``'s, so it accepts what the parser accepts.
struct FrameScanner {
    /// What a field holds: a string, or `null` in its place.
    enum Value {
        case string(JSONLexer.StringToken)
        case null

        var string: JSONLexer.StringToken? {
            if case .string(let token) = self { token } else { nil }
        }
    }

    /// The fields a ``PusherMessage`` keeps.
    struct Fields {
        var event: JSONLexer.StringToken
        var channel: JSONLexer.StringToken?
        var data: Value?
        var userID: JSONLexer.StringToken?
    }

    private(set) var lexer: JSONLexer
    /// Containers deeper than this in unknown fields go to the full parser.
    private static let maxDepth = 64

    init(bytes: UnsafeBufferPointer<UInt8>) {
        lexer = JSONLexer(bytes)
    }

    mutating func scanFrame() -> Fields? {
        var event: JSONLexer.StringToken?
        var channel: JSONLexer.StringToken?
        var data: Value?
        var userID: JSONLexer.StringToken?
        lexer.skipWhitespace()
        guard lexer.at(UInt8(ascii: "{")) else { return nil }
        lexer.index += 1
        lexer.skipWhitespace()
        if lexer.at(UInt8(ascii: "}")) { return nil }  // no event: the full parser names the error
        while true {
            guard let key = lexer.scanPlainKey() else { return nil }
            switch key.end - key.start {
            case 5 where lexer.matches(key, "event"):
                guard lexer.at(UInt8(ascii: "\"")), let value = try? lexer.scanString() else { return nil }
                event = value
            case 7 where lexer.matches(key, "channel"):
                guard let value = scanStringOrNull() else { return nil }
                channel = value.string
            case 4 where lexer.matches(key, "data"):
                guard let value = scanStringOrNull() else { return nil }
                data = value
            case 7 where lexer.matches(key, "user_id"):
                guard let value = scanStringOrNull() else { return nil }
                userID = value.string
            default:
                guard lexer.skipValue(maxDepth: Self.maxDepth - 1) else { return nil }
            }
            guard let end = lexer.skipSeparator(closing: UInt8(ascii: "}")) else { return nil }
            if end { break }
        }
        lexer.skipWhitespace()
        guard lexer.isAtEnd, let event else { return nil }
        return Fields(event: event, channel: channel, data: data, userID: userID)
    }

    private mutating func scanStringOrNull() -> Value? {
        if lexer.at(UInt8(ascii: "\"")) { return (try? lexer.scanString()).map(Value.string) }
        guard (try? lexer.expectLiteral("null")) != nil else { return nil }
        return .null
    }
}
