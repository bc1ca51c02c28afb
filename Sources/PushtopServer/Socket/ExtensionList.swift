/// The grammar of `Sec-WebSocket-Extensions` (RFC 6455 section 9.1): a comma-separated list of extensions, each a
/// token and `;`-separated parameters, a parameter a token with an optional value (a token or a quoted string).
package enum ExtensionList {
    /// One extension of the list.
    package struct Element {
        package var name: String
        package var parameters: [(name: String, value: String?)]
    }

    /// The extensions of one header value; elements that do not parse are left out (and so declined).
    package static func parse(_ value: String) -> [Element] {
        var elements: [Element] = []
        for item in split(value, on: ",") {
            let parts = split(item, on: ";").map { $0.trimmed }
            guard let name = parts.first, isToken(name) else { continue }
            var parameters: [(name: String, value: String?)] = []
            var valid = true
            for part in parts.dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = String(pair[0]).trimmed
                guard isToken(key) else { valid = false; break }
                guard pair.count == 2 else { parameters.append((key, nil)); continue }
                var raw = String(pair[1]).trimmed
                if raw.count >= 2, raw.hasPrefix("\""), raw.hasSuffix("\"") {
                    raw = String(raw.dropFirst().dropLast()).replacingBackslashEscapes
                }
                guard isToken(raw) else { valid = false; break }  // a quoted value must still be a token (9.1)
                parameters.append((key, raw))
            }
            if valid { elements.append(Element(name: name, parameters: parameters)) }
        }
        return elements
    }

    /// Splits on `separator` outside quoted strings.
    private static func split(_ text: String, on separator: Character) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted, character == separator {
                pieces.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        pieces.append(current)
        return pieces
    }

    /// An HTTP token (RFC 7230 section 3.2.6): visible ASCII but separators.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && !"()<>@,;:\\\"/[]?={}".utf8.contains(byte)
            }
    }
}

extension String {
    fileprivate var trimmed: String {
        var view = self[...]
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return String(view)
    }

    fileprivate var replacingBackslashEscapes: String {
        var result = ""
        var escaped = false
        for character in self {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return result
    }
}
