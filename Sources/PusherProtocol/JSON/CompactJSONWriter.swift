/// Rewrites one JSON document from its bytes into compact form. `false` means "not the usual case or not JSON":
/// ``CompactJSON/append(_:to:)`` then takes the ``JSONValue`` way, which decides.
///
/// The tokens are ``JSONLexer``'s, so what is written directly is what ``JSONParser`` accepts.
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
    private var lexer: JSONLexer

    init(bytes: UnsafeBufferPointer<UInt8>) {
        lexer = JSONLexer(bytes)
    }

    private var bytes: UnsafeBufferPointer<UInt8> { lexer.bytes }

    mutating func document(to out: inout [UInt8]) -> Bool {
        lexer.skipWhitespace()
        guard value(depth: 0, to: &out) else { return false }
        lexer.skipWhitespace()
        return lexer.isAtEnd
    }

    private mutating func value(depth: Int, to out: inout [UInt8]) -> Bool {
        guard !lexer.isAtEnd else { return false }
        switch bytes[lexer.index] {
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
        guard (try? lexer.expectLiteral(text)) != nil else { return false }
        CompactJSON.appendRaw(text, to: &out)
        return true
    }

    private mutating func array(depth: Int, to out: inout [UInt8]) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        out.append(UInt8(ascii: "["))
        if lexer.openContainer(closing: UInt8(ascii: "]")) {
            out.append(UInt8(ascii: "]"))
            return true
        }
        while true {
            lexer.skipWhitespace()
            guard value(depth: depth, to: &out), let end = lexer.skipSeparator(closing: UInt8(ascii: "]")) else {
                return false
            }
            out.append(end ? UInt8(ascii: "]") : UInt8(ascii: ","))
            if end { return true }
        }
    }

    /// Members are found first (their values passed over), sorted by key, then written in that order.
    private mutating func object(depth: Int, to out: inout [UInt8]) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        if lexer.openContainer(closing: UInt8(ascii: "}")) {
            out.append(UInt8(ascii: "{"))
            out.append(UInt8(ascii: "}"))
            return true
        }
        return withUnsafeTemporaryAllocation(of: Member.self, capacity: Self.maxMembers) { (members) -> Bool in
            var count = 0
            while true {
                lexer.skipWhitespace()
                guard lexer.at(UInt8(ascii: "\"")), count < Self.maxMembers,
                    let key = try? lexer.scanString(), isPlainKey(key)
                else { return false }
                lexer.skipWhitespace()
                guard lexer.at(UInt8(ascii: ":")) else { return false }
                lexer.index += 1
                lexer.skipWhitespace()
                let valueStart = lexer.index
                guard lexer.skipValue(maxDepth: Self.maxDepth - depth) else { return false }
                members.initializeElement(
                    at: count,
                    to: Member(
                        keyStart: key.start, keyEnd: key.end, valueStart: valueStart,
                        valueEnd: lexer.index))
                count += 1
                guard let end = lexer.skipSeparator(closing: UInt8(ascii: "}")) else { return false }
                if end { break }
            }
            let end = lexer.index
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
                lexer.index = member.valueStart
                guard value(depth: depth, to: &out), lexer.index == member.valueEnd else { return false }
            }
            out.append(UInt8(ascii: "}"))
            lexer.index = end
            return true
        }
    }

    /// Keys of printable ASCII without escapes sort as Swift's `String` does: byte by byte.
    private func isPlainKey(_ key: JSONLexer.StringToken) -> Bool {
        guard !key.escaped else { return false }
        for i in key.start..<key.end where bytes[i] >= 0x7F { return false }
        return true
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

    /// A string, unescaped and escaped again the canonical way.
    private mutating func string(to out: inout [UInt8]) -> Bool {
        guard let token = try? lexer.scanString() else { return false }
        let contents = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
        out.append(UInt8(ascii: "\""))
        if token.escaped {
            var run = 0
            var i = 0
            while i < contents.count {
                guard contents[i] == UInt8(ascii: "\\") else {
                    i += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: contents[run..<i]))
                let (code, next) = JSONLexer.unescape(contents, at: i)
                CompactJSON.appendEscaped(code, to: &out)
                i = next
                run = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: contents[run...]))
        } else {
            out.append(contentsOf: contents)
        }
        out.append(UInt8(ascii: "\""))
        return true
    }

    /// A number, checked as ``JSONParser`` checks it and written as ``JSONValue/writeNumber(_:to:)`` writes it.
    private mutating func number(to out: inout [UInt8]) -> Bool {
        guard let number = try? lexer.scanNumber() else { return false }
        let isInteger = !number.hasFraction && !number.hasExponent
        let slice = UnsafeBufferPointer(rebasing: bytes[number.start..<number.end])
        if isInteger, slice.count <= 17 {
            // Integers below 9e15 are exact as a Double and written back with the same digits (JSON has no
            // leading zeros); only "-0" becomes "0". Larger ones take the Double way below, as JSONParser does.
            var magnitude: UInt64 = 0
            for byte in slice where byte != UInt8(ascii: "-") {
                magnitude = magnitude * 10 + UInt64(byte - UInt8(ascii: "0"))
            }
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
