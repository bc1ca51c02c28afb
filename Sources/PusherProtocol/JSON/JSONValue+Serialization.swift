extension JSONValue {
    /// Compact JSON text with object keys sorted; integral numbers are written without a fraction.
    public var jsonString: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends compact JSON text to `out` (keys sorted).
    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): JSONValue.writeNumber(n, to: &out)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let elements):
            out += "["
            var first = true
            for element in elements {
                if !first { out += "," }
                first = false
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            var first = true
            for key in members.keys.sorted() {
                if !first { out += "," }
                first = false
                JSONValue.writeString(key, to: &out)
                out += ":"
                members[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    /// Compact JSON text of an object whose keys keep the given order (not sorted): for lines people read, such as
    /// `watch`'s output, recordings and JSON logs, where `type` or `time` comes first.
    public static func orderedObject(_ fields: [(String, JSONValue)]) -> String {
        var out = "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { out += "," }
            writeString(key, to: &out)
            out += ":"
            value.write(to: &out)
        }
        out += "}"
        return out
    }

    /// Writes a number as JSON: integers without a fraction, non-finite values as `null`.
    public static func writeNumber(_ n: Double, to out: inout String) {
        if !n.isFinite {
            out += "null"
        } else if n.rounded() == n, abs(n) < 9.0e15 {
            out += String(Int64(n))
        } else {
            out += "\(n)"
        }
    }

    /// Writes a string as a quoted, escaped JSON string.
    public static func writeString(_ s: String, to out: inout String) {
        out += "\""
        var needsEscape = false
        for b in s.utf8 where b < 0x20 || b == 0x22 || b == 0x5C {
            needsEscape = true
            break
        }
        if !needsEscape {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }
}
