import PusherProtocol

extension JSONValue {
    /// Indented JSON lines (two spaces, keys sorted), for the detail view.
    public func prettyLines(indent: String = "  ") -> [String] {
        var lines: [String] = []
        var current = ""
        writePretty(&lines, &current, level: 0, indent: indent)
        lines.append(current)
        return lines
    }

    private func writePretty(_ lines: inout [String], _ current: inout String, level: Int, indent: String) {
        let pad = String(repeating: indent, count: level)
        let inner = String(repeating: indent, count: level + 1)
        switch self {
        case .array(let items) where !items.isEmpty:
            current += "["
            for (i, item) in items.enumerated() {
                lines.append(current)
                current = inner
                item.writePretty(&lines, &current, level: level + 1, indent: indent)
                if i < items.count - 1 { current += "," }
            }
            lines.append(current)
            current = pad + "]"
        case .object(let members) where !members.isEmpty:
            current += "{"
            let keys = members.keys.sorted()
            for (i, key) in keys.enumerated() {
                lines.append(current)
                current = inner
                JSONValue.writeString(key, to: &current)
                current += ": "
                members[key]!.writePretty(&lines, &current, level: level + 1, indent: indent)
                if i < keys.count - 1 { current += "," }
            }
            lines.append(current)
            current = pad + "}"
        default:
            write(to: &current)
        }
    }
}

/// JSON formatted from its text as received: keys stay in the order they came (``JSONValue`` keeps objects
/// in a dictionary, which loses it), strings and numbers are shown exactly as written. A debugger shows the
/// payload as it came.
public enum JSONText {
    /// One token of JSON text: a structural character or a whole scalar (string, number, literal).
    enum Token: Equatable {
        case open(UInt8), close(UInt8), colon, comma
        case scalar(Substring)
    }

    /// Tokens of `text` when it is valid JSON (checked by ``JSONValue``), else `nil`.
    static func tokens(_ text: String) -> [Token]? {
        guard JSONValue.parseIfJSON(text) != nil else { return nil }
        let bytes = text.utf8
        var tokens: [Token] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                i = bytes.index(after: i)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                tokens.append(.open(b))
                i = bytes.index(after: i)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                tokens.append(.close(b))
                i = bytes.index(after: i)
            case UInt8(ascii: ":"):
                tokens.append(.colon)
                i = bytes.index(after: i)
            case UInt8(ascii: ","):
                tokens.append(.comma)
                i = bytes.index(after: i)
            case UInt8(ascii: "\""):
                var j = bytes.index(after: i)
                while j < bytes.endIndex, bytes[j] != UInt8(ascii: "\"") {
                    if bytes[j] == UInt8(ascii: "\\") { j = bytes.index(after: j) }
                    if j < bytes.endIndex { j = bytes.index(after: j) }
                }
                let end = j < bytes.endIndex ? bytes.index(after: j) : j
                tokens.append(.scalar(readable(text[i..<end])))
                i = end
            default:
                var j = i
                while j < bytes.endIndex, !" \t\n\r,:]}".utf8.contains(bytes[j]) { j = bytes.index(after: j) }
                if j == i { j = bytes.index(after: j) }  // cannot happen in valid JSON; never loop
                tokens.append(.scalar(text[i..<j]))
                i = j
            }
        }
        return tokens
    }

    /// A string token with `\uXXXX` escapes of printable characters decoded (as ``JSONValue`` writes strings),
    /// so that `"\u6771\u4eac"` reads `"東京"`; other tokens as written.
    static func readable(_ token: Substring) -> Substring {
        guard token.utf8.contains(UInt8(ascii: "\\")), token.contains("\\u"),
            case .string(let value)? = try? JSONValue(parsing: String(token))
        else { return token }
        var out = ""
        JSONValue.writeString(value, to: &out)
        return Substring(out)
    }

    /// `text` on one line without the whitespace between tokens, keys in received order; `nil` if not JSON.
    public static func compact(_ text: String) -> String? {
        guard let tokens = tokens(text) else { return nil }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for token in tokens {
            switch token {
            case .open(let b), .close(let b): out.unicodeScalars.append(Unicode.Scalar(b))
            case .colon: out += ":"
            case .comma: out += ","
            case .scalar(let s): out += s
            }
        }
        return out
    }

    /// `text` indented (two spaces), one member or item per line, keys in received order; `nil` if not JSON.
    public static func prettyLines(_ text: String, indent: String = "  ") -> [String]? {
        guard let tokens = tokens(text) else { return nil }
        var lines: [String] = []
        var current = ""
        var level = 0
        var i = 0
        while i < tokens.count {
            switch tokens[i] {
            case .open(let b):
                current.unicodeScalars.append(Unicode.Scalar(b))
                if i + 1 < tokens.count, case .close(let c) = tokens[i + 1] {
                    current.unicodeScalars.append(Unicode.Scalar(c))  // {} and [] stay on one line
                    i += 1
                } else {
                    level += 1
                    lines.append(current)
                    current = String(repeating: indent, count: level)
                }
            case .close(let b):
                level = max(0, level - 1)
                lines.append(current)
                current = String(repeating: indent, count: level)
                current.unicodeScalars.append(Unicode.Scalar(b))
            case .colon:
                current += ": "
            case .comma:
                current += ","
                lines.append(current)
                current = String(repeating: indent, count: level)
            case .scalar(let s):
                current += s
            }
            i += 1
        }
        lines.append(current)
        return lines
    }
}
