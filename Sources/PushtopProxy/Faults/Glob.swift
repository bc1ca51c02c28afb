/// `*`-patterns for channel and event names: `*` matches any run of characters (none included), everything else
/// itself.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        matches(Array(pattern.utf8)[...], Array(text.utf8)[...])
    }

    private static func matches(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        var p = pattern.startIndex
        var t = text.startIndex
        var star: Int?
        var resume = t
        while t < text.endIndex {
            if p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") {
                star = p
                p += 1
                resume = t
            } else if p < pattern.endIndex, pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let s = star {
                p = s + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.endIndex
    }
}
