/// Where everything goes at a terminal size: a pure function of the size.
public struct Layout: Sendable, Hashable {
    /// The smallest size the dashboard draws; below it, a "terminal too small" screen.
    public static let minimum = Size(rows: 16, columns: 60)

    public var size: Size
    public var header: Rect
    public var connection: Rect
    public var channels: Rect
    public var members: Rect
    public var log: Rect
    /// The bottom line: key hints, a prompt or a status message.
    public var footer: Rect
    /// Everything between the header and the footer (where a debugger view replaces the panes).
    public var body: Rect

    /// `nil` when the size is below ``minimum``.
    public init?(size: Size) {
        guard size.rows >= Layout.minimum.rows, size.columns >= Layout.minimum.columns else { return nil }
        self.size = size
        header = Rect(row: 0, column: 0, height: 1, width: size.columns)
        footer = Rect(row: size.rows - 1, column: 0, height: 1, width: size.columns)
        let body = size.rows - 2
        self.body = Rect(row: 1, column: 0, height: body, width: size.columns)
        let left = min(54, max(28, size.columns * 36 / 100))
        let right = size.columns - left
        let connectionHeight = min(13, body / 2)
        connection = Rect(row: 1, column: 0, height: connectionHeight, width: left)
        members = Rect(row: 1 + connectionHeight, column: 0, height: body - connectionHeight, width: left)
        let channelsHeight = max(5, body / 3)
        channels = Rect(row: 1, column: left, height: channelsHeight, width: right)
        log = Rect(row: 1 + channelsHeight, column: left, height: body - channelsHeight, width: right)
    }

    public func rect(of pane: Pane) -> Rect {
        switch pane {
        case .connection: return connection
        case .channels: return channels
        case .members: return members
        case .log: return log
        }
    }

    /// The pane at a screen position.
    public func pane(atRow row: Int, column: Int) -> Pane? {
        Pane.allCases.first { rect(of: $0).contains(row: row, column: column) }
    }

    /// Rows of log entries the log pane shows (inside the border).
    public var logRows: Int { max(0, log.height - 2) }
}
