import PusherProtocol

extension JSONValue {
    /// Indented JSON lines (two spaces, keys sorted), for the detail view.
    public func prettyLines(indent: String = "  ") -> [String] {
        var lines: [String] = []
        var current = ""
        writePretty(&lines, &current, level: 0, indent: indent)
        lines.append(current)
        return lines
    }

    private func writePretty(_ lines: inout [String], _ current: inout String, level: Int, indent: String) {
        let pad = String(repeating: indent, count: level)
        let inner = String(repeating: indent, count: level + 1)
        switch self {
        case .array(let items) where !items.isEmpty:
            current += "["
            for (i, item) in items.enumerated() {
                lines.append(current)
                current = inner
                item.writePretty(&lines, &current, level: level + 1, indent: indent)
                if i < items.count - 1 { current += "," }
            }
            lines.append(current)
            current = pad + "]"
        case .object(let members) where !members.isEmpty:
            current += "{"
            let keys = members.keys.sorted()
            for (i, key) in keys.enumerated() {
                lines.append(current)
                current = inner
                JSONValue.writeString(key, to: &current)
                current += ": "
                members[key]!.writePretty(&lines, &current, level: level + 1, indent: indent)
                if i < keys.count - 1 { current += "," }
            }
            lines.append(current)
            current = pad + "}"
        default:
            write(to: &current)
        }
    }
}
