/// The parameters of a request's query, in the order they came, percent-decoded, every one kept: a repeated name
/// is the HTTP API's 400 (``repeatedName``), never silently the first or the last; elsewhere the first counts.
///
/// A list, not a dictionary: an API request has half a dozen parameters, so a scan finds one faster than hashing
/// builds a table, and the signature's sorted string is made from the list directly.
struct QueryParameters: Sendable {
    private(set) var pairs: [(name: String, value: String)]

    /// Parses `name=value&…` bytes. Over raw bytes: String views' generic index walks cost more than the whole
    /// signature check of an API request.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            if start < end {
                var equals = start
                while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
                let name = decoded(UnsafeBufferPointer(rebasing: bytes[start..<equals]))
                let value = equals < end ? decoded(UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end])) : ""
                pairs.append((name, value))
            }
            start = end + 1
        }
        return pairs
    }

    init(pairs: [(name: String, value: String)]) {
        self.pairs = pairs
    }

    init(_ dictionary: [String: String]) {
        pairs = dictionary.map { ($0.key, $0.value) }
    }

    /// A name given more than once, or `nil`.
    var repeatedName: String? {
        for index in pairs.indices.dropFirst() {
            let name = pairs[index].name
            if pairs[..<index].contains(where: { $0.name == name }) { return name }
        }
        return nil
    }

    /// The value of `name` (the first, when repeated), or `nil`.
    subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    var dictionary: [String: String] {
        Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// A query component percent-decoded; Foundation's decoder runs only when there is a `%` (signed API queries
    /// rarely have one, and the decoder is a measurable part of a request's cost).
    private static func decoded(_ component: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: component, as: UTF8.self)
        guard component.contains(UInt8(ascii: "%")) else { return text }
        return text.removingPercentEncoding ?? text
    }
}
