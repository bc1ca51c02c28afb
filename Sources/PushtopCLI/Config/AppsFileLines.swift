/// Finds the line of a key in an apps file, for error messages (TOMLKit's values do not carry their position).
///
/// A small scan of the text: the `n`-th `[[apps]]` header starts app `n`, the `m`-th `[[apps.webhooks]]` after it
/// starts its webhook `m`, and a key is the first `key =` line in that block.
struct AppsFileLines {
    private let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The line (1-based) of `key` in app `app` (in its webhook `webhook`), or of the block's header when the key is
    /// not written there (a missing key), or `nil`.
    func line(app: Int, webhook: Int?, key: String?) -> Int? {
        var apps = -1
        var hooks = -1
        var inBlock = false
        for (number, raw) in lines.enumerated() {
            let text = Self.stripped(raw)
            if Self.isHeader(text, "apps") {
                apps += 1
                hooks = -1
                inBlock = apps == app && webhook == nil
            } else if Self.isHeader(text, "apps.webhooks") {
                if apps == app { hooks += 1 }
                inBlock = apps == app && hooks == webhook
            } else if text.hasPrefix("[") {
                inBlock = false
            } else if inBlock, let key, Self.assigns(text, key) {
                return number + 1
            }
        }
        return headerLine(app: app, webhook: webhook)
    }

    /// The line of a top-level key (before the first table).
    func line(ofTopLevel key: String) -> Int? {
        for (number, raw) in lines.enumerated() {
            let text = Self.stripped(raw)
            if Self.assigns(text, key) { return number + 1 }
            if Self.isHeader(text, key) { return number + 1 }
        }
        return nil
    }

    private func headerLine(app: Int, webhook: Int?) -> Int? {
        var apps = -1
        var hooks = -1
        for (number, raw) in lines.enumerated() {
            let text = Self.stripped(raw)
            if Self.isHeader(text, "apps") {
                apps += 1
                hooks = -1
                if apps == app, webhook == nil { return number + 1 }
            } else if Self.isHeader(text, "apps.webhooks"), apps == app {
                hooks += 1
                if hooks == webhook { return number + 1 }
            }
        }
        return nil
    }

    /// The line without spaces around it.
    private static func stripped(_ line: Substring) -> String {
        String(line.drop(while: { $0 == " " || $0 == "\t" }))
    }

    /// `[[name]]`, with any spaces inside the brackets.
    private static func isHeader(_ text: String, _ name: String) -> Bool {
        guard text.hasPrefix("[[") else { return false }
        let inside = text.dropFirst(2).prefix { $0 != "]" }.filter { $0 != " " && $0 != "\t" }
        return String(inside) == name
    }

    /// `key = …` (or `"key" = …`).
    private static func assigns(_ text: String, _ key: String) -> Bool {
        for candidate in [key, "\"\(key)\""] where text.hasPrefix(candidate) {
            let rest = text.dropFirst(candidate.count).drop(while: { $0 == " " || $0 == "\t" })
            if rest.hasPrefix("=") { return true }
        }
        return false
    }
}
