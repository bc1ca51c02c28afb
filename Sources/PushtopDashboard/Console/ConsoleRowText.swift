import PusherProtocol

/// A console row on one line: the short summary after its fixed columns (what the type adds: an address and
/// client, a close code and lifetime, data and its size, a status and URL…).
enum ConsoleRowText {
    /// The longest data shown in a summary (a row shows a few hundred columns at most).
    static let dataPreview = 512

    static func summary(_ row: ConsoleRow) -> String {
        var parts: [String]
        switch row.type {
        case .connection: parts = connectionParts(row)
        case .disconnection: parts = disconnectionParts(row)
        case .subscribed, .unsubscribed, .occupied, .vacated, .subscriptionCount:
            parts = row.subscriptionCount.map { ["\($0) subscribed"] } ?? []
        case .apiMessage, .clientEvent: parts = messageParts(row)
        case .presenceEvent: parts = row.userInfo.map { [preview($0.jsonString)] } ?? []
        case .error, .clientError, .apiError: parts = errorParts(row)
        case .webhookSent, .webhookFailed: parts = webhookParts(row)
        case .gap: parts = ["\(row.dropped ?? 0) rows missed (the listener was too slow): counts approximate"]
        case .webhookRejected: parts = webhookRejectedParts(row)
        case .webhookProblem: parts = [row.problem, row.cause].compactMap { $0 }
        case .fault, .recovered: parts = faultParts(row)
        case .verdict: parts = [row.verdict, row.rule, row.reason].compactMap { $0 }
        }
        if row.source == .webhook, row.type != .webhookRejected, row.type != .webhookProblem {
            parts.append("(webhook)")
        }
        return parts.joined(separator: " · ")
    }

    /// A connection: its address, client library and version, protocol, TLS, origin.
    private static func connectionParts(_ row: ConsoleRow) -> [String] {
        var parts: [String] = []
        if let a = row.remoteAddress { parts.append("from \(a)") }
        if let lib = row.clientLibrary { parts.append(lib + (row.clientVersion.map { " \($0)" } ?? "")) }
        if let p = row.protocolVersion { parts.append("protocol \(p)") }
        if let tls = row.tls { parts.append(tls ? "tls" : "no tls") }
        if let o = row.origin { parts.append("origin \(o)") }
        return parts
    }

    /// A disconnection: the close code and reason, who closed, the lifetime, the channels it was in.
    private static func disconnectionParts(_ row: ConsoleRow) -> [String] {
        var parts: [String] = []
        if let c = row.code { parts.append("code \(c)" + (row.reason.map { " \($0)" } ?? "")) }
        if let by = row.closedBy { parts.append("closed by \(by.rawValue.replacingUnderscores)") }
        if let ms = row.lifetimeMs { parts.append("lived \(ConsoleView.lifetime(ms))") }
        if let ch = row.channels, !ch.isEmpty { parts.append("in \(ch.joined(separator: ", "))") }
        return parts
    }

    /// A message (from the HTTP API or a client): its data and size, channels, sender and recipients.
    private static func messageParts(_ row: ConsoleRow) -> [String] {
        var parts: [String] = []
        if let d = row.data { parts.append(preview(d)) }
        if let n = row.dataBytes { parts.append(Format.bytes(n) + (row.dataTruncated == true ? " (cut)" : "")) }
        if let ch = row.channels, ch.count > 1 { parts.append("\(ch.count) channels") }
        if row.batch == true { parts.append("batch") }
        if let x = row.excludedSocketID { parts.append("excludes \(x)") }
        if row.type == .apiMessage, let a = row.remoteAddress { parts.append("from \(a)") }
        if let to = row.deliveredTo { parts.append("to \(to.count) socket\(to.count == 1 ? "" : "s")") }
        return parts
    }

    /// An error: status, code, reason, the rule broken, the URL, an API caller's address.
    private static func errorParts(_ row: ConsoleRow) -> [String] {
        var parts: [String] = []
        if let s = row.status { parts.append("\(s)") }
        if let c = row.code { parts.append("\(c)") }
        if let r = row.reason { parts.append(preview(r)) }
        if let rule = row.rule { parts.append("rule \(rule)") }
        if let u = row.url { parts.append(u) }
        if let a = row.remoteAddress, row.type == .apiError { parts.append("from \(a)") }
        return parts
    }

    /// A webhook sent or failed: status, reason, URL, attempt, the events it carried.
    private static func webhookParts(_ row: ConsoleRow) -> [String] {
        var parts: [String] = []
        if let s = row.status { parts.append("\(s)") }
        if let r = row.reason { parts.append(preview(r)) }
        if let u = row.url { parts.append(u) }
        if let n = row.attempt { parts.append("attempt \(n)") }
        if let e = row.events, !e.isEmpty { parts.append(e.joined(separator: ", ")) }
        return parts
    }

    /// A webhook the receiver rejected: the cause and the two signatures' starts.
    private static func webhookRejectedParts(_ row: ConsoleRow) -> [String] {
        var parts: [String] = []
        if let c = row.cause { parts.append(c) }
        if let e = row.expectedSignature, let r = row.receivedSignature {
            parts.append("expected \(e.prefix(12))… received \(r.prefix(12))…")
        }
        return parts
    }

    /// An injected fault or the recovery from one: the fault, reason, old socket, reconnect and resubscribe times.
    private static func faultParts(_ row: ConsoleRow) -> [String] {
        var parts: [String] = []
        if let f = row.fault { parts.append(f) }
        if let r = row.reason { parts.append(preview(r)) }
        if let p = row.previousSocketID { parts.append("was \(p)") }
        if let ms = row.reconnectMs { parts.append("reconnected in \(ms) ms") }
        if let ms = row.resubscribeMs { parts.append("resubscribed in \(ms) ms") }
        if let p = row.problem { parts.append(p) }
        return parts
    }

    /// Data on one line, short and without control characters.
    static func preview(_ text: String) -> String {
        DisplayWidth.sanitized(text.utf8.count > dataPreview ? String(text.prefix(dataPreview)) : text)
    }
}

extension String {
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
