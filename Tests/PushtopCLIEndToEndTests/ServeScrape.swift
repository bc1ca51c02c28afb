import PushtopTestSupport

/// `GET /metrics` of a real `pushtop serve`, over a plain socket: every sample line as `name{labels}` → value.
enum ServeScrape {
    static func metrics(port: Int) async throws -> [String: Double] {
        let text = try await offloaded {
            let socket = try RawSocket(port: port, timeout: 5)
            defer { socket.close() }
            try socket.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return String(decoding: socket.readToEnd().bytes, as: UTF8.self)
        }
        guard text.hasPrefix("HTTP/1.1 200") else { throw TestFailure("GET /metrics: \(text.prefix(200))") }
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            values[String(line[..<space])] = value
        }
        return values
    }

    /// The samples of one app (`app="ID"` among their labels).
    static func ofApp(_ id: String, _ values: [String: Double]) -> [String: Double] {
        values.filter { $0.key.contains("app=\"\(id)\"") }
    }
}
