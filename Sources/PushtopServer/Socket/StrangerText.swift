/// What a stranger sent (a key no app has, a path), as a log line may quote it.
enum StrangerText {
    /// Characters of a stranger's input a log line repeats at most.
    static let maxLoggedCharacters = 64

    /// Control characters, quotes and backslashes escaped, anything beyond printable ASCII as `\u{…}`, at most
    /// `limit` characters (``maxLoggedCharacters`` by default), then `…`: a log reader never sees raw bytes a
    /// stranger chose (no forged lines, no terminal escapes, no reversed text).
    static func printable(_ text: String, limit: Int = maxLoggedCharacters) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < limit else {
                result += "…"
                break
            }
            count += 1
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case " "..."~": result.unicodeScalars.append(scalar)
            default: result += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return result
    }
}
