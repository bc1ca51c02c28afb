/// A URL query (`name=value&…`), read by one rule: the HTTP API's, the console feed's, the proxy's routes', the
/// WebSocket upgrade's (`/app/KEY?protocol=7&client=js`) and the demo auth endpoint's form bodies all read theirs
/// with it.
///
/// The rule, as `application/x-www-form-urlencoded` and Pusher's HTTP API read a signed query:
/// - pairs are split on `&` (empty ones, `a&&b`, are skipped), each on its first `=` (`a` and `a=` are both `a`
///   with an empty value; `a=b=c` is `a` with `b=c`);
/// - names and values are percent-decoded, and `+` is a space (`%2B` is a `+`); raw UTF-8 passes as it is;
/// - a `%` not followed by two hex digits is ``URLQueryError/badPercentEncoding(_:)``; escapes that decode to
///   bytes that are not UTF-8 are ``URLQueryError/notUTF8(_:)``;
/// - a name given twice (compared after decoding, case-sensitively) is ``URLQueryError/repeated(_:)``: never
///   silently the first or the last, since which one was signed or meant is ambiguous.
///
/// The HTTP API's signature is computed over the decoded pairs (``APIRequestSignature/stringToSign(method:path:pairs:)``).
/// A client that signed a literal `+` as itself, as this server once read it, is still accepted: the verifier also
/// tries ``readingPlusLiterally``, the same rule over the query with each `+` sent as `%2B`.
///
/// A list, not a dictionary: an API request has half a dozen parameters, so a scan finds one faster than hashing
/// builds a table, and the signature's sorted string is made from the list directly. Read over raw bytes: String
/// views' generic index walks cost more than the whole signature check of an API request.
package struct URLQuery: Sendable {
    /// The parameters in the order they came, decoded, each name once.
    package private(set) var pairs: [(name: String, value: String)]
    /// The query as sent, kept only when it has a `+` (for ``readingPlusLiterally``).
    private var textWithPlus: Substring?

    /// No parameters.
    package init() {
        pairs = []
    }

    /// Reads `query`, the part of a URL after its `?`.
    /// - Throws: ``URLQueryError``, naming the parameter.
    package init(_ query: Substring) throws(URLQueryError) {
        var text = query
        let (read, hasPlus) = text.withUTF8 { (Self.parse($0), $0.contains(UInt8(ascii: "+"))) }
        pairs = try read.get()
        if hasPlus { textWithPlus = query }
    }

    /// Reads `query`, the part of a URL after its `?`.
    /// - Throws: ``URLQueryError``, naming the parameter.
    package init(_ query: String) throws(URLQueryError) {
        try self.init(query[...])
    }

    /// Parameters given as decoded pairs (a signed request being built, a test).
    /// - Throws: ``URLQueryError/repeated(_:)`` when a name is given twice.
    package init(pairs: [(name: String, value: String)]) throws(URLQueryError) {
        var seen = Set<String>()
        for pair in pairs where !seen.insert(pair.name).inserted { throw .repeated(pair.name) }
        self.pairs = pairs
    }

    /// The path and the query of a request target (`/app/KEY?protocol=7`); no `?`, no parameters.
    /// - Throws: ``URLQueryError``, naming the parameter.
    package static func split(target: String) throws(URLQueryError) -> (path: Substring, query: URLQuery) {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (target[...], URLQuery()) }
        return (target[..<mark], try URLQuery(target[target.utf8.index(after: mark)...]))
    }

    /// The value of `name`, or `nil`.
    package subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    package var isEmpty: Bool { pairs.isEmpty }

    /// The parameters by name (exact: each name is there once).
    package var dictionary: [String: String] {
        Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// The same query read with each `+` as itself (the query with every `+` sent as `%2B`); `nil` when the query
    /// has no `+`, or when so read it breaks the rule (two names become one).
    package var readingPlusLiterally: URLQuery? {
        guard let text = textWithPlus else { return nil }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "+") {
                escaped += [UInt8(ascii: "%"), UInt8(ascii: "2"), UInt8(ascii: "B")]
            } else {
                escaped.append(byte)
            }
        }
        return try? URLQuery(String(decoding: escaped, as: UTF8.self))
    }

    // MARK: Reading

    /// Names checked for repeats by a scan up to this many pairs, by a set beyond (a long hostile query must not
    /// cost a scan per pair).
    private static let scanLimit = 16

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<
        [(name: String, value: String)], URLQueryError
    > {
        var pairs: [(name: String, value: String)] = []
        var names: Set<String>?
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            if start < end {
                var equals = start
                while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
                let rawName = UnsafeBufferPointer(rebasing: bytes[start..<equals])
                let name: String
                switch decode(rawName) {
                case .text(let text): name = text
                case .badEscape: return .failure(.badPercentEncoding(String(decoding: rawName, as: UTF8.self)))
                case .notUTF8: return .failure(.notUTF8(String(decoding: rawName, as: UTF8.self)))
                }
                var value = ""
                if equals < end {
                    switch decode(UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end])) {
                    case .text(let text): value = text
                    case .badEscape: return .failure(.badPercentEncoding(name))
                    case .notUTF8: return .failure(.notUTF8(name))
                    }
                }
                if var seen = names {
                    names = nil  // keeps the set uniquely referenced while it grows
                    guard seen.insert(name).inserted else { return .failure(.repeated(name)) }
                    names = seen
                } else {
                    if pairs.contains(where: { $0.name == name }) { return .failure(.repeated(name)) }
                    if pairs.count == scanLimit { names = Set(pairs.map(\.name) + [name]) }
                }
                pairs.append((name, value))
            }
            start = end + 1
        }
        return .success(pairs)
    }

    private enum Decoded {
        case text(String)
        case badEscape
        case notUTF8
    }

    /// One name or value decoded: `%XX` escapes, `+` as a space.
    private static func decode(_ component: UnsafeBufferPointer<UInt8>) -> Decoded {
        guard component.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return .text(String(decoding: component, as: UTF8.self))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.count)
        var index = 0
        while index < component.count {
            let byte = component[index]
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
                index += 1
            case UInt8(ascii: "%"):
                guard index + 2 < component.count, let high = hexValue(component[index + 1]),
                    let low = hexValue(component[index + 2])
                else { return .badEscape }
                bytes.append(high << 4 | low)
                index += 3
            default:
                bytes.append(byte)
                index += 1
            }
        }
        guard bytes.withUnsafeBytes({ UTF8Validation.isValid($0) }) else { return .notUTF8 }
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Why a query breaks ``URLQuery``'s rule; each names the parameter (as sent, when its name is what is broken).
package enum URLQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name is given more than once.
    case repeated(String)
    /// A `%` not followed by two hex digits, in this parameter's name or value.
    case badPercentEncoding(String)
    /// Escapes in this parameter's name or value that decode to bytes that are not UTF-8.
    case notUTF8(String)

    /// The parameter named.
    package var name: String {
        switch self {
        case .repeated(let name), .badPercentEncoding(let name), .notUTF8(let name): name
        }
    }

    /// The reason, as an HTTP 400's body says it.
    package var description: String {
        switch self {
        case .repeated(let name):
            "Query parameter '\(Self.excerpt(name))' is given more than once"
        case .badPercentEncoding(let name):
            "Query parameter '\(Self.excerpt(name))' is badly percent-encoded: a '%' must be followed by two hex digits"
        case .notUTF8(let name):
            "Query parameter '\(Self.excerpt(name))' is percent-encoded bytes that are not UTF-8"
        }
    }

    /// Characters of a name an error repeats back, at most.
    static let maxEchoedCharacters = 200

    private static func excerpt(_ text: String) -> String {
        guard text.count > maxEchoedCharacters else { return text }
        return String(text.prefix(maxEchoedCharacters)) + "…"
    }
}
