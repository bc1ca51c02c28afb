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
