/// Writes compact JSON as bytes, for output built without `String`s or ``JSONValue`` trees (`watch`'s lines).
///
/// The output is byte for byte what ``JSONValue/jsonString`` and ``JSONValue/writeString(_:to:)`` give: no
/// whitespace, object keys sorted, integral numbers without a fraction, strings escaped the same way.
public enum CompactJSON {
    /// Appends the compact form of the JSON document `text` (what `JSONValue(parsing: text).jsonString` gives).
    ///
    /// Usual documents (keys of printable ASCII without escapes, at most 32 members per object and 32 levels) are
    /// rewritten straight from the text's bytes, allocating nothing; others go through ``JSONValue``.
    /// - Returns: `false`, with `out` unchanged, when `text` is not JSON.
    public static func append(_ text: String, to out: inout [UInt8]) -> Bool {
        let start = out.count
        let direct: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            var writer = CompactJSONWriter(bytes: bytes)
            return writer.document(to: &out)
        }
        if direct == true { return true }
        if out.count > start { out.removeSubrange(start...) }
        guard let value = try? JSONValue(parsing: text) else { return false }
        out.append(contentsOf: value.jsonString.utf8)
        return true
    }

    /// Appends `s` as a quoted, escaped JSON string (the bytes ``JSONValue/writeString(_:to:)`` writes).
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var needsEscape = false
        for b in s.utf8 where b < 0x20 || b == 0x22 || b == 0x5C {
            needsEscape = true
            break
        }
        if needsEscape {
            for scalar in s.unicodeScalars { appendEscaped(scalar.value, to: &out) }
        } else {
            out.append(contentsOf: s.utf8)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `literal` as it is.
    public static func appendRaw(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends one Unicode scalar inside a JSON string, escaped as ``JSONValue/writeString(_:to:)`` does.
    static func appendEscaped(_ code: UInt32, to out: inout [UInt8]) {
        switch code {
        case 0x22: out.append(0x5C); out.append(0x22)
        case 0x5C: out.append(0x5C); out.append(0x5C)
        case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
        case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
        case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
        case 0..<0x20:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            out.append(hex[Int(code >> 4)])
            out.append(hex[Int(code & 0xF)])
        default:
            for unit in UTF8.encode(Unicode.Scalar(code) ?? "\u{FFFD}")! { out.append(unit) }
        }
    }

    /// Appends a number as ``JSONValue/writeNumber(_:to:)`` writes it (`false` for a non-finite one).
    static func appendNumber(_ n: Double, to out: inout [UInt8]) -> Bool {
        guard n.isFinite else { return false }
        if n.rounded() == n, abs(n) < 9.0e15 {
            appendInteger(Int64(n), to: &out)
        } else {
            out.append(contentsOf: n.description.utf8)
        }
        return true
    }

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64) = (0, 0)  // 16 bytes of scratch, enough for |value| < 9e15
        withUnsafeMutableBytes(of: &digits) { scratch in
            var i = scratch.count
            repeat {
                i -= 1
                scratch[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0 && i > 0
            out.append(contentsOf: scratch[i...])
        }
    }
}

/// Rewrites one JSON document from its bytes into compact form. `false` means "not the usual case or not JSON":
/// ``CompactJSON/append(_:to:)`` then takes the ``JSONValue`` way, which decides.
struct CompactJSONWriter {
    /// One object member: where its key's bytes are (without quotes) and where its value starts and ends.
    private struct Member {
        var keyStart: Int
        var keyEnd: Int
        var valueStart: Int
        var valueEnd: Int
    }

    private static let maxMembers = 32
    private static let maxDepth = 32
    let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func document(to out: inout [UInt8]) -> Bool {
        skipWhitespace()
        guard value(depth: 0, to: &out) else { return false }
        skipWhitespace()
        return index == bytes.count
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func at(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private mutating func value(depth: Int, to out: inout [UInt8]) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth + 1, to: &out)
        case UInt8(ascii: "["): return array(depth: depth + 1, to: &out)
        case UInt8(ascii: "\""): return string(to: &out)
        case UInt8(ascii: "t"): return literal("true", to: &out)
        case UInt8(ascii: "f"): return literal("false", to: &out)
        case UInt8(ascii: "n"): return literal("null", to: &out)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number(to: &out)
        default: return false
        }
    }

    private mutating func literal(_ text: StaticString, to out: inout [UInt8]) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for i in 0..<count where bytes[index + i] != text.utf8Start[i] { return false }
        index += count
        CompactJSON.appendRaw(text, to: &out)
        return true
    }

    private mutating func array(depth: Int, to out: inout [UInt8]) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        index += 1
        out.append(UInt8(ascii: "["))
        skipWhitespace()
        if at(UInt8(ascii: "]")) {
            index += 1
            out.append(UInt8(ascii: "]"))
            return true
        }
        while true {
            skipWhitespace()
            guard value(depth: depth, to: &out) else { return false }
            skipWhitespace()
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            index += 1
            out.append(byte)
            if byte == UInt8(ascii: "]") { return true }
            guard byte == UInt8(ascii: ",") else { return false }
        }
    }

    /// Members are found first (their values passed over), sorted by key, then written in that order.
    private mutating func object(depth: Int, to out: inout [UInt8]) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        index += 1
        skipWhitespace()
        if at(UInt8(ascii: "}")) {
            index += 1
            out.append(UInt8(ascii: "{"))
            out.append(UInt8(ascii: "}"))
            return true
        }
        return withUnsafeTemporaryAllocation(of: Member.self, capacity: Self.maxMembers) { (members) -> Bool in
            var count = 0
            while true {
                skipWhitespace()
                guard at(UInt8(ascii: "\"")), count < Self.maxMembers else { return false }
                index += 1
                let keyStart = index
                // Keys of printable ASCII without escapes sort as Swift's `String` does: byte by byte.
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    let byte = bytes[index]
                    guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return false }
                    index += 1
                }
                guard index < bytes.count else { return false }
                let keyEnd = index
                index += 1
                skipWhitespace()
                guard at(UInt8(ascii: ":")) else { return false }
                index += 1
                skipWhitespace()
                let valueStart = index
                guard skipValue() else { return false }
                members.initializeElement(at: count, to: Member(keyStart: keyStart, keyEnd: keyEnd,
                                                                valueStart: valueStart, valueEnd: index))
                count += 1
                skipWhitespace()
                guard index < bytes.count else { return false }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "}") { break }
                guard byte == UInt8(ascii: ",") else { return false }
            }
            let end = index
            // Insertion sort: a handful of members, usually in order already.
            for i in 1..<max(1, count) {
                let member = members[i]
                var j = i
                while j > 0 {
                    let order = compareKeys(members[j - 1], member)
                    if order == 0 { return false }  // a duplicate key: the last one wins, left to JSONValue
                    if order < 0 { break }
                    members[j] = members[j - 1]
                    j -= 1
                }
                members[j] = member
            }
            out.append(UInt8(ascii: "{"))
            for i in 0..<count {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                let member = members[i]
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[member.keyStart..<member.keyEnd]))
                out.append(UInt8(ascii: "\""))
                out.append(UInt8(ascii: ":"))
                index = member.valueStart
                guard value(depth: depth, to: &out), index == member.valueEnd else { return false }
            }
            out.append(UInt8(ascii: "}"))
            index = end
            return true
        }
    }

    private func compareKeys(_ a: Member, _ b: Member) -> Int {
        let lengthA = a.keyEnd - a.keyStart
        let lengthB = b.keyEnd - b.keyStart
        for i in 0..<min(lengthA, lengthB) {
            let x = bytes[a.keyStart + i]
            let y = bytes[b.keyStart + i]
            if x != y { return x < y ? -1 : 1 }
        }
        return lengthA == lengthB ? 0 : (lengthA < lengthB ? -1 : 1)
    }

    /// Finds the end of one value without checking it (the writing pass does).
    private mutating func skipValue() -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default:
                    break
                }
                index += 1
            }
            return false
        default:
            let start = index
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    index += 1
                default:
                    return index > start
                }
            }
            return index > start
        }
    }

    private mutating func skipString() -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"):
                index += 2
            default:
                index += 1
            }
        }
        return false
    }

    /// A string, unescaped and escaped again the canonical way.
    private mutating func string(to out: inout [UInt8]) -> Bool {
        index += 1
        out.append(UInt8(ascii: "\""))
        var run = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                index += 1
                out.append(UInt8(ascii: "\""))
                return true
            }
            if byte < 0x20 { return false }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
            index += 1
            guard index < bytes.count else { return false }
            let kind = bytes[index]
            index += 1
            switch kind {
            case UInt8(ascii: "\""): CompactJSON.appendEscaped(0x22, to: &out)
            case UInt8(ascii: "\\"): CompactJSON.appendEscaped(0x5C, to: &out)
            case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): CompactJSON.appendEscaped(0x08, to: &out)
            case UInt8(ascii: "f"): CompactJSON.appendEscaped(0x0C, to: &out)
            case UInt8(ascii: "n"): CompactJSON.appendEscaped(0x0A, to: &out)
            case UInt8(ascii: "r"): CompactJSON.appendEscaped(0x0D, to: &out)
            case UInt8(ascii: "t"): CompactJSON.appendEscaped(0x09, to: &out)
            case UInt8(ascii: "u"):
                guard var code = FrameScanner.hex4(bytes, at: index) else { return false }
                index += 4
                if (0xD800...0xDBFF).contains(code) {
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        guard let low = FrameScanner.hex4(bytes, at: index + 2), (0xDC00...0xDFFF).contains(low) else {
                            return false
                        }
                        index += 6
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        code = 0xFFFD
                    }
                } else if (0xDC00...0xDFFF).contains(code) {
                    code = 0xFFFD
                }
                CompactJSON.appendEscaped(code, to: &out)
            default:
                return false
            }
            run = index
        }
        return false
    }

    /// A number, checked as ``JSONParser`` checks it and written as ``JSONValue/writeNumber(_:to:)`` writes it.
    private mutating func number(to out: inout [UInt8]) -> Bool {
        guard let number = FrameScanner.scanNumber(bytes, from: index) else { return false }
        let start = index
        index = number.end
        let isInteger = !number.hasFraction && !number.hasExponent
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, slice.count <= 17 {
            // Integers below 9e15 are exact as a Double and written back with the same digits (JSON has no
            // leading zeros); only "-0" becomes "0". Larger ones take the Double way below, as JSONParser does.
            var magnitude: UInt64 = 0
            for byte in slice where byte != UInt8(ascii: "-") { magnitude = magnitude * 10 + UInt64(byte - UInt8(ascii: "0")) }
            if magnitude < 9_000_000_000_000_000 {
                if magnitude == 0 {
                    out.append(UInt8(ascii: "0"))
                } else {
                    out.append(contentsOf: slice)
                }
                return true
            }
        }
        guard let value = Double(String(decoding: slice, as: UTF8.self)) else { return false }
        return CompactJSON.appendNumber(value, to: &out)
    }
}
