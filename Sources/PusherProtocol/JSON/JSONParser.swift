/// A small recursive-descent JSON parser over UTF-8 bytes.
///
/// Every frame a Pusher client receives is parsed (and its `data` usually a second time), so this sits on
/// the hottest path. Foundation's `JSONSerialization` and `JSONDecoder` were measured at 2.5-6 µs per
/// small frame on Linux (see the design's platform notes); parsing the bytes directly into ``JSONValue``
/// avoids the bridging through `NSObject`s. The tokens are ``JSONLexer``'s.
struct JSONParser {
    private var lexer: JSONLexer
    private var depth = 0
    private static let maxDepth = 512

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        lexer = JSONLexer(bytes)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        lexer.skipWhitespace()
        let value = try parseValue()
        lexer.skipWhitespace()
        if !lexer.isAtEnd { throw error("unexpected trailing characters") }
        return value
    }

    private func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: lexer.index, reason: reason)
    }

    /// A lexer's failure as an error at the offset where it stopped.
    private func error(_ failure: JSONLexer.Failure) -> JSONParseError {
        error(failure.reason)
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard !lexer.isAtEnd else { throw error("unexpected end of input") }
        switch lexer.bytes[lexer.index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ text: StaticString) throws(JSONParseError) {
        do { try lexer.expectLiteral(text) } catch { throw self.error(error) }
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth)") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        if lexer.openContainer(closing: UInt8(ascii: "}")) { return .object(members) }
        while true {
            lexer.skipWhitespace()
            guard lexer.at(UInt8(ascii: "\"")) else { throw error("expected a key") }
            let key = try parseString()
            lexer.skipWhitespace()
            guard lexer.at(UInt8(ascii: ":")) else { throw error("expected ':'") }
            lexer.index += 1
            lexer.skipWhitespace()
            members[key] = try parseValue()
            if try separator(closing: UInt8(ascii: "}"), expected: "expected ',' or '}'") { return .object(members) }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if lexer.openContainer(closing: UInt8(ascii: "]")) { return .array(elements) }
        while true {
            lexer.skipWhitespace()
            elements.append(try parseValue())
            if try separator(closing: UInt8(ascii: "]"), expected: "expected ',' or ']'") { return .array(elements) }
        }
    }

    /// Past a comma (`false`) or the closing bracket (`true`).
    private mutating func separator(closing: UInt8, expected: String) throws(JSONParseError) -> Bool {
        lexer.skipWhitespace()
        guard !lexer.isAtEnd else { throw error("unexpected end of input") }
        if lexer.at(UInt8(ascii: ",")) {
            lexer.index += 1
            return false
        }
        guard lexer.at(closing) else { throw error(expected) }
        lexer.index += 1
        return true
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        do { return lexer.string(try lexer.scanString()) } catch { throw self.error(error) }
    }

    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let token: JSONLexer.NumberToken
        do { token = try lexer.scanNumber() } catch { throw self.error(error) }
        let slice = UnsafeBufferPointer(rebasing: lexer.bytes[token.start..<token.end])
        if !token.hasFraction, !token.hasExponent, slice.count <= 15 {
            var value: Int64 = 0
            var negative = false
            for b in slice {
                if b == UInt8(ascii: "-") { negative = true; continue }
                value = value * 10 + Int64(b - UInt8(ascii: "0"))
            }
            return Double(negative ? -value : value)
        }
        guard let value = Double(String(decoding: slice, as: UTF8.self)) else { throw error("invalid number") }
        // 1e400 would become infinity, which JSON cannot hold (it would be written back as null).
        guard value.isFinite else {
            lexer.index = token.start
            throw error("number out of range")
        }
        return value
    }
}
