import PusherProtocol
import PushtopDashboard

/// What one event of a `pushtop serve` debug feed says: the `hello` that opens it, or a row.
public enum ConsoleFeedMessage: Sendable, Hashable {
    /// `event: hello`: what the node knew when the feed opened; `cluster`: whether the node runs with `--redis`
    /// (every node's feed then carries every node's rows).
    case hello(ConsoleSnapshot, cluster: Bool)
    case row(ConsoleRow)
    /// An event that is neither (an unknown `event:` name, data that is not a row): skipped, and counted.
    case unreadable(String)

    /// Reads one event of the feed opened as `source`.
    public init(_ event: ServerSentEvent, source: String) {
        switch event.event {
        case nil, "message":
            if let row = ConsoleRow(jsonLine: event.data) {
                self = .row(row)
            } else {
                self = .unreadable("not a console row: \(Self.excerpt(event.data))")
            }
        case "hello":
            guard let json = try? JSONValue(parsing: event.data), case .object(let o) = json else {
                self = .unreadable("hello is not a JSON object: \(Self.excerpt(event.data))")
                return
            }
            let snapshot = ConsoleSnapshot(
                source: source, node: o["node"]?.stringValue, appID: o["app_id"]?.stringValue,
                connections: o["connections"]?.intValue,
                occupiedChannels: o["channels"]?.arrayValue?.compactMap(\.stringValue),
                timeMs: Int64(o["time_ms"]?.numberValue ?? 0))
            self = .hello(snapshot, cluster: o["cluster"]?.boolValue ?? false)
        case let other?:
            self = .unreadable("unknown event '\(Self.excerpt(other))'")
        }
    }

    static func excerpt(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(80)) + "…"
    }
}
