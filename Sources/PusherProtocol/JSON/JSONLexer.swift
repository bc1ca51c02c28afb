#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one place where JSON text is read byte by byte: whitespace, literals, strings with their escapes, numbers,
/// and passing over a whole value.
///
/// ``JSONParser`` builds values from what it finds, ``FrameScanner`` finds a Pusher frame's fields with it, and
/// ``CompactJSONWriter`` rewrites documents with it, so all three accept exactly the same text and decode escapes
/// and surrogates the same way. A lexer is a cursor (`index`) over bytes it does not own; on a failure `index` is
/// where the text went wrong (``JSONParser`` reports that offset).
struct JSONLexer {
    /// Why the text at `index` is not JSON.
    enum Failure: Error, Equatable {
        case unexpectedEnd
        case invalidLiteral
        case controlCharacter
        case invalidEscape
        case invalidHexEscape
        case invalidSurrogatePair
        case unterminatedString
        case invalidNumber

        /// The reason ``JSONParseError`` gives.
        var reason: String {
            switch self {
            case .unexpectedEnd: "unexpected end of input"
            case .invalidLiteral: "invalid literal"
            case .controlCharacter: "control character in string"
            case .invalidEscape: "invalid escape"
            case .invalidHexEscape: "invalid \\u escape"
            case .invalidSurrogatePair: "invalid surrogate pair"
            case .unterminatedString: "unterminated string"
            case .invalidNumber: "invalid number"
            }
        }
    }

    /// A string's contents (between its quotes) and whether they hold escapes (then ``string(_:)`` unescapes them).
    struct StringToken {
        var start: Int
        var end: Int
        var escaped: Bool
    }

    /// A number's text and whether it has a fraction or an exponent (an integer when it has neither).
    struct NumberToken {
        var start: Int
        var end: Int
        var hasFraction: Bool
        var hasExponent: Bool
    }

    /// Numbers longer than this are passed over by ``skipValue(maxDepth:)`` only with ``JSONParser``'s say-so.
    static let maxSkippedNumberLength = 300

    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    /// Whether the byte at the cursor is `byte`.
    @inline(__always)
    func at(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    @inline(__always)
    var isAtEnd: Bool { index >= bytes.count }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Passes over `literal` (`true`, `false`, `null`), or fails with the cursor where it was.
    mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw .unexpectedEnd }
        let start = literal.utf8Start
        for i in 0..<count where bytes[index + i] != start[i] { throw .invalidLiteral }
        index += count
    }

    // MARK: Strings

    /// Passes over the string whose opening quote is at the cursor, checking its escapes.
    ///
    /// A high surrogate escape followed by another `\u` escape must pair with a low one; a lone surrogate is
    /// accepted (it decodes as U+FFFD).
    mutating func scanString() throws(Failure) -> StringToken {
        // The cursor lives in a local while scanning (the hot loop of every decode), and is stored on the way out.
        let start = index + 1
        var i = start
        var escaped = false
        defer { index = i }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                i += 1
                return StringToken(start: start, end: i - 1, escaped: escaped)
            }
            if byte < 0x20 { throw .controlCharacter }
            guard byte == UInt8(ascii: "\\") else {
                i += 1
                continue
            }
            escaped = true
            i += 1
            guard i < bytes.count else { throw .unexpectedEnd }
            let kind = bytes[i]
            i += 1
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                break
            case UInt8(ascii: "u"):
                let code = try hex4(at: &i)
                if (0xD800...0xDBFF).contains(code), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"),
                    bytes[i + 1] == UInt8(ascii: "u")
                {
                    i += 2
                    guard (0xDC00...0xDFFF).contains(try hex4(at: &i)) else { throw .invalidSurrogatePair }
                }
            default:
                throw .invalidEscape
            }
        }
        throw .unterminatedString
    }

    /// The four hex digits at `i`, passed over; on a bad digit `i` is at it.
    private func hex4(at i: inout Int) throws(Failure) -> UInt32 {
        guard i + 4 <= bytes.count else { throw .unexpectedEnd }
        guard let value = Self.hex4(bytes, at: i) else {
            while Self.hexDigit(bytes[i]) != nil { i += 1 }
            throw .invalidHexEscape
        }
        i += 4
        return value
    }

    /// Four hex digits at `offset`, or `nil`: the only 4-hex-digit decoder.
    @inline(__always)
    static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for i in offset..<offset + 4 {
            guard let digit = hexDigit(bytes[i]) else { return nil }
            value = value << 4 | digit
        }
        return value
    }

    @inline(__always)
    private static func hexDigit(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// In an object, at a member: passes its key (a string with no escapes, which the fast readers require) and the
    /// colon after it, and any whitespace around them; `nil` when the member does not start so.
    mutating func scanPlainKey() -> StringToken? {
        skipWhitespace()
        guard at(UInt8(ascii: "\"")), let key = try? scanString(), !key.escaped else { return nil }
        skipWhitespace()
        guard at(UInt8(ascii: ":")) else { return nil }
        index += 1
        skipWhitespace()
        return key
    }

    /// Whether a scanned string with no escapes is `literal`.
    func matches(_ token: StringToken, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard token.end - token.start == count else { return false }
        return memcmp(bytes.baseAddress! + token.start, literal.utf8Start, count) == 0
    }

    /// The text of a scanned string: its bytes as they are, or unescaped.
    func string(_ token: StringToken) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
        guard token.escaped else { return String(decoding: slice, as: UTF8.self) }
        // An escape never yields more bytes than it takes (`\uD83D\uDE00`: 12 in, 4 out).
        return String(unsafeUninitializedCapacity: slice.count) { out in
            var o = 0
            var i = 0
            while i < slice.count {
                let byte = slice[i]
                guard byte == UInt8(ascii: "\\") else {
                    out[o] = byte
                    o += 1
                    i += 1
                    continue
                }
                let (code, next) = Self.unescape(slice, at: i)
                i = next
                for unit in UTF8.encode(Unicode.Scalar(code) ?? "\u{FFFD}")! {
                    out[o] = unit
                    o += 1
                }
            }
            return o
        }
    }

    /// The scalar that the escape at `i` (its backslash) stands for, and where the next byte is, in the contents of a
    /// string that ``scanString()`` accepted; a lone surrogate stands for U+FFFD.
    @inline(__always)
    static func unescape(_ contents: UnsafeBufferPointer<UInt8>, at i: Int) -> (code: UInt32, next: Int) {
        let escaped = contents[i + 1]
        switch escaped {
        case UInt8(ascii: "b"): return (0x08, i + 2)
        case UInt8(ascii: "f"): return (0x0C, i + 2)
        case UInt8(ascii: "n"): return (0x0A, i + 2)
        case UInt8(ascii: "r"): return (0x0D, i + 2)
        case UInt8(ascii: "t"): return (0x09, i + 2)
        case UInt8(ascii: "u"):
            let code = hex4(contents, at: i + 2)!
            let next = i + 6
            if (0xD800...0xDBFF).contains(code) {
                guard next + 1 < contents.count, contents[next] == UInt8(ascii: "\\"),
                    contents[next + 1] == UInt8(ascii: "u")
                else { return (0xFFFD, next) }
                let low = hex4(contents, at: next + 2)!
                return (0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00), next + 6)
            }
            return ((0xDC00...0xDFFF).contains(code) ? 0xFFFD : code, next)
        default: return (UInt32(escaped), i + 2)  // `"`, `\` and `/` stand for themselves
        }
    }

    // MARK: Numbers

    /// Passes over the number at the cursor; on a failure the cursor is where a digit was missing.
    mutating func scanNumber() throws(Failure) -> NumberToken {
        let start = index
        if at(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw .invalidNumber }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        let hasFraction = at(UInt8(ascii: "."))
        if hasFraction {
            index += 1
            guard skipDigits() else { throw .invalidNumber }
        }
        let hasExponent = at(UInt8(ascii: "e")) || at(UInt8(ascii: "E"))
        if hasExponent {
            index += 1
            if at(UInt8(ascii: "+")) || at(UInt8(ascii: "-")) { index += 1 }
            guard skipDigits() else { throw .invalidNumber }
        }
        return NumberToken(start: start, end: index, hasFraction: hasFraction, hasExponent: hasExponent)
    }

    @discardableResult
    private mutating func skipDigits() -> Bool {
        let first = index
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        return index > first
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: Whole values

    /// Passes over one value that ``JSONParser`` would accept; `false` when it is not one, or when only the parser can
    /// tell: containers nested deeper than `maxDepth`, numbers with an exponent or longer than
    /// ``maxSkippedNumberLength`` (they may be out of range).
    mutating func skipValue(maxDepth: Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return (try? scanString()) != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard maxDepth > 0 else { return false }
            let isObject = bytes[index] == UInt8(ascii: "{")
            let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            if openContainer(closing: closing) { return true }
            while true {
                skipWhitespace()
                if isObject {
                    guard at(UInt8(ascii: "\"")), (try? scanString()) != nil else { return false }
                    skipWhitespace()
                    guard at(UInt8(ascii: ":")) else { return false }
                    index += 1
                    skipWhitespace()
                }
                guard skipValue(maxDepth: maxDepth - 1), let end = skipSeparator(closing: closing) else { return false }
                if end { return true }
            }
        case UInt8(ascii: "t"): return (try? expectLiteral("true")) != nil
        case UInt8(ascii: "f"): return (try? expectLiteral("false")) != nil
        case UInt8(ascii: "n"): return (try? expectLiteral("null")) != nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard let number = try? scanNumber(), !number.hasExponent else { return false }
            return number.end - number.start <= Self.maxSkippedNumberLength
        default: return false
        }
    }

    /// Passes the opening bracket at the cursor and any whitespace; `true` (the closing bracket passed too) when the
    /// container is empty.
    @inline(__always)
    mutating func openContainer(closing: UInt8) -> Bool {
        index += 1
        skipWhitespace()
        guard at(closing) else { return false }
        index += 1
        return true
    }

    /// After a member or an element: `false` past a comma, `true` past the closing bracket, `nil` for anything else.
    @inline(__always)
    mutating func skipSeparator(closing: UInt8) -> Bool? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        index += 1
        if byte == closing { return true }
        return byte == UInt8(ascii: ",") ? false : nil
    }
}
