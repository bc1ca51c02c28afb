/// The four panes, in focus order (keys 1-4).
public enum Pane: Int, Sendable, Hashable, CaseIterable {
    case connection = 0
    case channels
    case members
    case log

    public var title: String {
        switch self {
        case .connection: return "Connection"
        case .channels: return "Channels"
        case .members: return "Members"
        case .log: return "Event log"
        }
    }
}
