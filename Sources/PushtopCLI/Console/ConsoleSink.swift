import PusherProtocol
import PushtopDashboard

/// Where the console's sources hand what they see: `pushtop console`'s printer, or the dashboard's ``ConsoleFeed``.
/// Called from any task, concurrently.
public protocol ConsoleSink: Sendable {
    /// A source's new state.
    func update(_ source: ConsoleSourceStatus)
    /// What a feed knew when it opened (its `hello`); `cluster`: the node runs with `--redis`.
    func post(snapshot: ConsoleSnapshot, cluster: Bool)
    /// Rows, in the order the source saw them.
    func post(_ rows: [ConsoleRow])
    /// The webhook receiver (the source `source`) listens on `address` (the bound port when 0 was asked for).
    func listening(_ source: String, address: String)
}

extension ConsoleSink {
    public func listening(_ source: String, address: String) {}
}

extension ConsoleFeed: ConsoleSink {
    public func post(snapshot: ConsoleSnapshot, cluster: Bool) {
        post(snapshot: snapshot)
    }
}
