/// What the screen is showing on top of the panes.
public enum Overlay: Sendable, Hashable {
    case none
    case help
    /// The detail view of a log entry.
    case detail(seq: Int, scroll: Int)
}
