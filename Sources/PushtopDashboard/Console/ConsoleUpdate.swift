import PusherProtocol

/// What the console's sources posted since the last frame (``ConsoleFeed``), for ``UIEvent/console(_:)``.
public struct ConsoleUpdate: Sendable {
    /// Rows, in the order they happened.
    public var rows: [ConsoleRow]
    /// Snapshots (feeds' `hello`s) that arrived.
    public var snapshots: [ConsoleSnapshot]
    /// Rows the feed dropped (its buffer was full).
    public var dropped: Int
    /// Every source's state, when one changed.
    public var sources: [ConsoleSourceStatus]?

    public init(
        rows: [ConsoleRow] = [], snapshots: [ConsoleSnapshot] = [], dropped: Int = 0,
        sources: [ConsoleSourceStatus]? = nil
    ) {
        self.rows = rows
        self.snapshots = snapshots
        self.dropped = dropped
        self.sources = sources
    }

    /// Whether there is nothing in it.
    public var isEmpty: Bool { rows.isEmpty && snapshots.isEmpty && dropped == 0 && sources == nil }
}
