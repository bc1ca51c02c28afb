/// The app's HTTP API as the dashboard uses it (channel browser, presence check). The executable adapts
/// `PusherAPIClient` to it when the app id and secret are known; tests and the preview script it.
public protocol AppAPI: Sendable {
    /// `GET /apps/ID/channels` with `subscription_count`, and `user_count` for presence channels.
    func occupiedChannels() async throws -> [OccupiedChannel]
    /// `GET /apps/ID/channels/NAME/users`: the user ids the server holds for a presence channel.
    func presenceUserIDs(channel: String) async throws -> [String]
    /// Asks `pushtop proxy` (the host the app's API goes to) to close a socket with `code`: its signed control
    /// endpoint, `POST /apps/ID/proxy/faults`.
    func closeSocket(socketID: String, code: Int) async throws
}

/// Closing sockets on request is `pushtop proxy`'s: other APIs cannot.
public struct CloseSocketUnsupported: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "only pushtop proxy closes a socket on request" }
}

extension AppAPI {
    public func closeSocket(socketID: String, code: Int) async throws { throw CloseSocketUnsupported() }
}
