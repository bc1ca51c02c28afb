#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes Pusher frames straight from their UTF-8 bytes: the outer object is scanned in place, without a
/// `String` of the frame or a ``JSONValue`` tree.
///
/// Only the fields a message keeps become values: `event` and `channel` (names seen before are reused, so a
/// steady stream allocates nothing for them), `data` when it is a string (its text, unescaped, is the one
/// allocation per frame) and `user_id`. Unknown fields are checked and skipped. Anything unusual (escaped keys,
/// `data` as an object, mistyped fields, malformed JSON) goes to ``PusherMessage/init(decoding:)``, so results and
/// errors are exactly that initializer's.
///
/// One decoder per connection: it is a value with a small cache of names, used on one thread.
public struct PusherFrameDecoder: Sendable {
    /// Names longer than a small string (15 bytes), most recent first in no particular order.
    private var names: [String] = []
    private var nextSlot = 0
    private static let cacheSize = 16

    /// A decoder with an empty name cache.
    public init() {}

    /// Decodes one text frame from its bytes.
    ///
    /// The bytes should be valid UTF-8 (check with ``UTF8Validation/isValid(_:)``); invalid sequences decode as
    /// U+FFFD, as `String(decoding:as:)` would make them.
    /// - Throws: ``PusherMessageError``, the same error ``PusherMessage/init(decoding:)`` gives for the text.
    public mutating func decode(_ bytes: UnsafeRawBufferPointer) throws(PusherMessageError) -> PusherMessage {
        let buffer = bytes.assumingMemoryBound(to: UInt8.self)
        var scanner = FrameScanner(bytes: buffer)
        if let fields = scanner.scanFrame() {
            return PusherMessage(
                event: name(fields.event, in: buffer),
                channel: fields.channel.map { name($0, in: buffer) },
                data: fields.data.map { (token) -> JSONValue in token.isNull ? .null : .string(Self.text(token, in: buffer)) },
                userID: fields.userID.map { Self.text($0, in: buffer) })
        }
        return try PusherMessage(decoding: String(decoding: buffer, as: UTF8.self))
    }

    /// An event or channel name: small strings are built in place (no allocation), longer ones come from the cache
    /// when the bytes match a name seen before.
    private mutating func name(_ token: FrameScanner.Token, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = token.end - token.start
        guard !token.escaped, count > 15 else { return Self.text(token, in: bytes) }
        let start = bytes.baseAddress! + token.start
        for cached in names where cached.utf8.count == count {
            let same = cached.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, start, count) == 0 }
            if same == true { return cached }
        }
        let made = Self.text(token, in: bytes)
        if names.count < Self.cacheSize {
            names.append(made)
        } else {
            names[nextSlot] = made
            nextSlot = (nextSlot + 1) % Self.cacheSize
        }
        return made
    }

    /// The text of a scanned string: its bytes as they are, or unescaped.
    static func text(_ token: FrameScanner.Token, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
        guard token.escaped else { return String(decoding: slice, as: UTF8.self) }
        // An escape never yields more bytes than it takes (`\uD83D\uDE00`: 12 in, 4 out).
        return String(unsafeUninitializedCapacity: slice.count) { out in
            var o = 0
            var i = 0
            func put(_ byte: UInt8) {
                out[o] = byte
                o += 1
            }
            while i < slice.count {
                let byte = slice[i]
                guard byte == UInt8(ascii: "\\") else {
                    put(byte)
                    i += 1
                    continue
                }
                let escaped = slice[i + 1]
                i += 2
                switch escaped {
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u"):
                    var code = FrameScanner.hex4(slice, at: i)!
                    i += 4
                    if (0xD800...0xDBFF).contains(code) {
                        if i + 1 < slice.count, slice[i] == UInt8(ascii: "\\"), slice[i + 1] == UInt8(ascii: "u") {
                            let low = FrameScanner.hex4(slice, at: i + 2)!
                            i += 6
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            code = 0xFFFD
                        }
                    } else if (0xDC00...0xDFFF).contains(code) {
                        code = 0xFFFD
                    }
                    for unit in UTF8.encode(Unicode.Scalar(code) ?? "\u{FFFD}")! { put(unit) }
                default: put(escaped)  // `"`, `\` and `/` stand for themselves
                }
            }
            return o
        }
    }
}

/// Finds the fields of a Pusher frame's outer object in its bytes, checking everything else it passes over.
///
/// `nil` means "not the plain case": the caller falls back to the full parser, which decides (and names the
/// error). So this only has to be right about what it accepts.
struct FrameScanner {
    /// A string's contents (without the quotes) and whether it holds escapes.
    struct Token {
        var start: Int
        var end: Int
        var escaped: Bool
        /// A `null` in place of a string.
        var isNull = false
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Containers deeper than this in unknown fields go to the full parser.
    private static let maxDepth = 64
    /// Longer numbers (or any with an exponent) go to the full parser, which checks their range.
    private static let maxNumberLength = 300

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func scanFrame() -> (event: Token, channel: Token?, data: Token?, userID: Token?)? {
        var event: Token?
        var channel: Token?
        var data: Token?
        var userID: Token?
        skipWhitespace()
        guard at(UInt8(ascii: "{")) else { return nil }
        index += 1
        skipWhitespace()
        if at(UInt8(ascii: "}")) { return nil }  // no event: the full parser names the error
        while true {
            skipWhitespace()
            guard at(UInt8(ascii: "\"")), let key = scanString(), !key.escaped else { return nil }
            skipWhitespace()
            guard at(UInt8(ascii: ":")) else { return nil }
            index += 1
            skipWhitespace()
            switch key.end - key.start {
            case 5 where matches(key, "event"):
                guard at(UInt8(ascii: "\"")), let value = scanString() else { return nil }
                event = value
            case 7 where matches(key, "channel"):
                guard let value = scanStringOrNull() else { return nil }
                channel = value.isNull ? nil : value
            case 4 where matches(key, "data"):
                guard let value = scanStringOrNull() else { return nil }
                data = value
            case 7 where matches(key, "user_id"):
                guard let value = scanStringOrNull() else { return nil }
                userID = value.isNull ? nil : value
            default:
                guard skipValue(depth: 1) else { return nil }
            }
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                break
            } else {
                return nil
            }
        }
        skipWhitespace()
        guard index == bytes.count, let event else { return nil }
        return (event, channel, data, userID)
    }

    private func at(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private func matches(_ token: Token, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard token.end - token.start == count else { return false }
        return memcmp(bytes.baseAddress! + token.start, literal.utf8Start, count) == 0
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func scanStringOrNull() -> Token? {
        if at(UInt8(ascii: "\"")) { return scanString() }
        guard expectLiteral("null") else { return nil }
        return Token(start: index, end: index, escaped: false, isNull: true)
    }

    /// A string starting at the opening quote; `nil` when it is not valid JSON.
    mutating func scanString() -> Token? {
        index += 1
        let start = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let token = Token(start: start, end: index, escaped: escaped)
                index += 1
                return token
            }
            if byte < 0x20 { return nil }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            escaped = true
            index += 1
            guard index < bytes.count else { return nil }
            let kind = bytes[index]
            index += 1
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                break
            case UInt8(ascii: "u"):
                guard let code = Self.hex4(bytes, at: index) else { return nil }
                index += 4
                if (0xD800...0xDBFF).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    // The full parser takes the next escape as the low half and fails if it is not one.
                    guard let low = Self.hex4(bytes, at: index + 2), (0xDC00...0xDFFF).contains(low) else { return nil }
                    index += 6
                }
            default:
                return nil
            }
        }
        return nil
    }

    private mutating func expectLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0 else {
            return false
        }
        index += count
        return true
    }

    /// Passes over one valid JSON value; `false` when it is not one (or is beyond the limits above).
    private mutating func skipValue(depth: Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return scanString() != nil
        case UInt8(ascii: "{"):
            guard depth < Self.maxDepth else { return false }
            index += 1
            skipWhitespace()
            if at(UInt8(ascii: "}")) {
                index += 1
                return true
            }
            while true {
                skipWhitespace()
                guard at(UInt8(ascii: "\"")), scanString() != nil else { return false }
                skipWhitespace()
                guard at(UInt8(ascii: ":")) else { return false }
                index += 1
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                guard index < bytes.count else { return false }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "}") { return true }
                guard bytes[index - 1] == UInt8(ascii: ",") else { return false }
            }
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else { return false }
            index += 1
            skipWhitespace()
            if at(UInt8(ascii: "]")) {
                index += 1
                return true
            }
            while true {
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                guard index < bytes.count else { return false }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "]") { return true }
                guard bytes[index - 1] == UInt8(ascii: ",") else { return false }
            }
        case UInt8(ascii: "t"): return expectLiteral("true")
        case UInt8(ascii: "f"): return expectLiteral("false")
        case UInt8(ascii: "n"): return expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return skipNumber()
        default: return false
        }
    }

    /// A number without an exponent and of modest length: always finite, so the full parser would accept it.
    private mutating func skipNumber() -> Bool {
        guard let number = Self.scanNumber(bytes, from: index), !number.hasExponent else { return false }
        defer { index = number.end }
        return number.end - index <= Self.maxNumberLength
    }

    /// The JSON number at `start`, checked as ``JSONParser`` checks it: where it ends, and whether it has a fraction
    /// or an exponent; `nil` when the bytes there are not a number.
    static func scanNumber(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int)
        -> (end: Int, hasFraction: Bool, hasExponent: Bool)?
    {
        var index = start
        func at(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }
        func digits() -> Bool {
            let first = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return index > first
        }
        if at(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { _ = digits() }
        let hasFraction = at(UInt8(ascii: "."))
        if hasFraction {
            index += 1
            guard digits() else { return nil }
        }
        let hasExponent = at(UInt8(ascii: "e")) || at(UInt8(ascii: "E"))
        if hasExponent {
            index += 1
            if at(UInt8(ascii: "+")) || at(UInt8(ascii: "-")) { index += 1 }
            guard digits() else { return nil }
        }
        return (index, hasFraction, hasExponent)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Four hex digits at `offset`, or `nil`.
    static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for i in offset..<offset + 4 {
            let b = bytes[i]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }
}
