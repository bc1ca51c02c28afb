import PusherProtocol

/// "Follow this socket": one socket id's lifetime at a glance, from its rows: when and how it connected, the
/// channels it joined (and left), and how it ended.
public struct ConsoleSocketLife: Sendable, Hashable {
    public var socketID: String
    public var connectedAtMs: Int64?
    public var node: String?
    public var remoteAddress: String?
    public var client: String?
    /// Channels it is in now (in the order it subscribed).
    public var channels: [String] = []
    /// Channels it was in and left.
    public var left: [String] = []
    public var disconnectedAtMs: Int64?
    public var code: Int?
    public var reason: String?
    public var closedBy: ConsoleClosedBy?
    public var lifetimeMs: Int64?
    /// Rows seen of this socket.
    public var rows = 0

    public init(socketID: String) {
        self.socketID = socketID
    }

    /// Applies one of the socket's rows (others are ignored).
    public mutating func apply(_ row: ConsoleRow) {
        guard row.socketID == socketID else { return }
        rows += 1
        switch row.type {
        case .connection:
            connectedAtMs = row.timeMs
            node = row.node ?? node
            remoteAddress = row.remoteAddress
            if let lib = row.clientLibrary { client = lib + (row.clientVersion.map { " \($0)" } ?? "") }
        case .subscribed:
            if let c = row.channel, !channels.contains(c) { channels.append(c) }
            left.removeAll { $0 == row.channel }
        case .unsubscribed:
            if let c = row.channel {
                channels.removeAll { $0 == c }
                if !left.contains(c) { left.append(c) }
            }
        case .disconnection:
            disconnectedAtMs = row.timeMs
            code = row.code
            reason = row.reason
            closedBy = row.closedBy
            lifetimeMs = row.lifetimeMs ?? connectedAtMs.map { row.timeMs - $0 }
            for c in row.channels ?? channels where !channels.contains(c) { channels.append(c) }
        default:
            break
        }
    }
}
