/// The parameters of a request's query, in the order they came, percent-decoded, the first of a repeated name kept.
///
/// A list, not a dictionary: an API request has half a dozen parameters, so a scan finds one faster than hashing
/// builds a table, and the signature's sorted string is made from the list directly.
struct QueryParameters: Sendable {
    private(set) var pairs: [(name: String, value: String)]

    /// The parameters of `query` (the part after `?`, without it).
    init(query: Substring) {
        pairs = []
        let utf8 = query.utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
            if start < end {
                let equals = utf8[start..<end].firstIndex(of: UInt8(ascii: "="))
                let name = Self.decoded(query[start..<(equals ?? end)])
                if self[name] == nil {
                    pairs.append((name, equals.map { Self.decoded(query[utf8.index(after: $0)..<end]) } ?? ""))
                }
            }
            start = end == utf8.endIndex ? end : utf8.index(after: end)
        }
    }

    init(_ dictionary: [String: String]) {
        pairs = dictionary.map { ($0.key, $0.value) }
    }

    /// The value of `name`, or `nil`.
    subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    var dictionary: [String: String] {
        Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// A query component percent-decoded; Foundation's decoder runs only when there is a `%` (signed API queries
    /// rarely have one, and the decoder is a measurable part of a request's cost).
    private static func decoded(_ component: Substring) -> String {
        let text = String(component)
        guard component.utf8.contains(UInt8(ascii: "%")) else { return text }
        return text.removingPercentEncoding ?? text
    }
}
