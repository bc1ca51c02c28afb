/// The app's HTTP API as the dashboard uses it (channel browser, presence check). The executable adapts
/// `PusherAPIClient` to it when the app id and secret are known; tests and the preview script it.
public protocol AppAPI: Sendable {
    /// `GET /apps/ID/channels` with `subscription_count`, and `user_count` for presence channels.
    func occupiedChannels() async throws -> [OccupiedChannel]
    /// `GET /apps/ID/channels/NAME/users`: the user ids the server holds for a presence channel.
    func presenceUserIDs(channel: String) async throws -> [String]
}
