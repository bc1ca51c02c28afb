import PusherProtocol

extension PusherAPIClient {
    /// Sends an event to one user's signed-in connections, as the server SDKs' `send_to_user` does: an event on
    /// the channel `#server-to-user-{userID}` through `POST /apps/{id}/events`.
    public func sendToUser(_ userID: String, event: String, data: String) async throws(PusherAPIError)
        -> PusherAPIResponse
    {
        try await trigger(channels: [PusherEventName.serverToUserPrefix + userID], event: event, data: data)
    }

    /// `POST /apps/{id}/users/{userID}/terminate_connections`: closes every connection signed in as the user.
    public func terminateUserConnections(_ userID: String) async throws(PusherAPIError) -> PusherAPIResponse {
        try await send(method: "POST", path: "/users/\(Self.escape(userID))/terminate_connections", body: "{}")
    }
}
