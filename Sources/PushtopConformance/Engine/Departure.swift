/// How a subscriber leaves a channel: the vacated cases check each, since a server may forget a channel on
/// `pusher:unsubscribe` and not when its last subscriber disconnects.
public enum Departure: String, Sendable, Hashable, CaseIterable {
    /// `pusher:unsubscribe`, the connection kept.
    case unsubscribe
    /// The connection closed with a close frame (a tab closed, `pusher.disconnect()`).
    case closeFrame = "close"
    /// The TCP connection dropped without a close frame (a laptop lid, a network cut).
    case drop

    /// How a case's message says it: "unsubscribes", "disconnects with a close frame", "drops its TCP connection".
    public var phrase: String {
        switch self {
        case .unsubscribe: return "unsubscribes"
        case .closeFrame: return "disconnects with a close frame"
        case .drop: return "drops its TCP connection without a close frame"
        }
    }
}

extension CaseContext {
    /// `connection` leaves `channel` as `departure` says; for a close frame, waits (up to ``patience``) for the
    /// server's reply so that the server has seen it.
    public func leave(_ connection: ProbeConnection, _ channel: String, by departure: Departure) async {
        switch departure {
        case .unsubscribe:
            unsubscribe(connection, channel)
            _ = await roundTrip(connection)
        case .closeFrame:
            connection.socket.close(code: 1000, reason: "conform: leaving")
            _ = await connection.socket.end(within: patience)
        case .drop:
            connection.socket.drop()
        }
    }
}
