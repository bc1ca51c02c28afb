import PushtopConfig
/// Reads dotenv assignments one at a time (see ``DotEnvFile``).
struct DotEnvParser {
    let characters: [Character]
    let path: String
    var i = 0
    var line = 1

    init(characters: [Character], path: String) {
        self.characters = characters
        self.path = path
    }

    private var current: Character? { i < characters.count ? characters[i] : nil }

    private mutating func advance() {
        if characters[i] == "\n" { line += 1 }
        i += 1
    }

    private func error(_ message: String, line: Int) -> ConfigError {
        ConfigError(source: "\(path):\(line)", message: message)
    }

    private mutating func skipBlanks() {
        while let c = current, c == " " || c == "\t" { advance() }
    }

    private mutating func skipToEndOfLine() {
        while let c = current, c != "\n" { advance() }
        if current == "\n" { advance() }
    }

    private static func isKeyCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == ".")
    }

    /// The next assignment (key, value as written, its line), or `nil` at the end of the text.
    mutating func next() throws(ConfigError) -> (String, DotEnvValue, Int)? {
        while true {
            skipBlanks()
            guard let c = current else { return nil }
            if c == "\n" || c == "\r" { advance(); continue }
            if c == "#" { skipToEndOfLine(); continue }
            break
        }
        let start = line
        var key = readKey()
        if key == "export", current == " " || current == "\t" {
            skipBlanks()
            key = readKey()
        }
        guard !key.isEmpty else {
            throw error("expected KEY=value, found '\(restOfLine())'", line: start)
        }
        skipBlanks()
        guard current == "=" else {
            throw error("expected '=' after \(key), found '\(restOfLine())'", line: start)
        }
        advance()
        skipBlanks()
        let value: DotEnvValue
        switch current {
        case "'": value = try readSingleQuoted(start: start)
        case "\"": value = try readDoubleQuoted(start: start)
        default: value = readUnquoted()
        }
        // After a quoted value: blanks, then a comment or the end of the line.
        skipBlanks()
        if current == "\r" { advance() }
        if let c = current, c != "\n", c != "#" {
            throw error("unexpected '\(restOfLine())' after the value of \(key)", line: line)
        }
        skipToEndOfLine()
        return (key, value, start)
    }

    private mutating func readKey() -> String {
        var key = ""
        while let c = current, Self.isKeyCharacter(c) { key.append(c); advance() }
        return key
    }

    private func restOfLine() -> String {
        var text = ""
        var j = i
        while j < characters.count, characters[j] != "\n", text.count < 40 { text.append(characters[j]); j += 1 }
        return text
    }

    private mutating func readSingleQuoted(start: Int) throws(ConfigError) -> DotEnvValue {
        advance()
        var value = DotEnvValue()
        while let c = current {
            advance()
            if c == "'" { return value }
            value.append(c)
        }
        throw error("the single quote opened here is never closed", line: start)
    }

    private mutating func readDoubleQuoted(start: Int) throws(ConfigError) -> DotEnvValue {
        advance()
        var value = DotEnvValue()
        while let c = current {
            if c == "\"" { advance(); return value }
            if c == "\\", i + 1 < characters.count {
                advance()
                let e = current!
                advance()
                switch e {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "\"", "\\", "$", "'": value.append(e)
                default: value.append("\\"); value.append(e)
                }
                continue
            }
            if c == "$", let reference = readReference() { value.pieces.append(reference); continue }
            value.append(c)
            advance()
        }
        throw error("the double quote opened here is never closed", line: start)
    }

    private mutating func readUnquoted() -> DotEnvValue {
        var value = DotEnvValue()
        var previousWasBlank = true
        while let c = current, c != "\n" {
            if c == "#", previousWasBlank { break }
            if c == "$", let reference = readReference() {
                value.pieces.append(reference)
                previousWasBlank = false
                continue
            }
            value.append(c)
            previousWasBlank = c == " " || c == "\t"
            advance()
        }
        // Trailing blanks (and a Windows line end) are not part of the value.
        if case .text(let s) = value.pieces.last {
            let trimmed = String(s.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
            if trimmed.isEmpty {
                value.pieces.removeLast()
            } else {
                value.pieces[value.pieces.count - 1] = .text(trimmed)
            }
        }
        return value
    }

    /// `${NAME}` or `${NAME:-default}` at the cursor (a `$` followed by anything else is literal).
    private mutating func readReference() -> DotEnvValue.Piece? {
        guard i + 1 < characters.count, characters[i + 1] == "{" else { return nil }
        var j = i + 2
        var name = ""
        while j < characters.count, Self.isKeyCharacter(characters[j]) { name.append(characters[j]); j += 1 }
        guard !name.isEmpty, j < characters.count else { return nil }
        var fallback: String?
        if characters[j] == ":", j + 1 < characters.count, characters[j + 1] == "-" {
            j += 2
            var text = ""
            while j < characters.count, characters[j] != "}", characters[j] != "\n" {
                text.append(characters[j]); j += 1
            }
            fallback = text
        }
        guard j < characters.count, characters[j] == "}" else { return nil }
        i = j + 1
        return .reference(name: name, fallback: fallback)
    }
}
