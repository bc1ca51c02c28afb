/// How much of a client's input an error message repeats back.
enum ErrorText {
    /// Characters of a name or value quoted in an error; longer ones are cut with an ellipsis.
    static let maxEchoedCharacters = 200

    /// `text` as an error message may quote it: at most ``maxEchoedCharacters`` characters, then `…`.
    static func excerpt(_ text: String) -> String {
        guard text.utf8.count > maxEchoedCharacters else { return text }
        var end = text.startIndex
        var count = 0
        while end < text.endIndex, count < maxEchoedCharacters {
            text.formIndex(after: &end)
            count += 1
        }
        return end == text.endIndex ? text : String(text[..<end]) + "…"
    }
}
