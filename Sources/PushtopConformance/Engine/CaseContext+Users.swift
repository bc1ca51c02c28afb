import PusherProtocol

/// How a `pusher:signin` ended.
public enum SignInAnswer: Sendable {
    case success(PusherMessage)
    /// Refused: how (`pusher:error 4009 "…"`, `close 4009`).
    case refused(String)
    case silent
}

extension CaseContext {
    /// The `user_data` of a sign-in: `{"id":…,"user_info":…,"watchlist":[…]}`.
    public func userData(user: String, info: JSONValue? = nil, watchlist: [String]? = nil) -> String {
        var fields: [(String, JSONValue)] = [("id", .string(user))]
        if let info { fields.append(("user_info", info)) }
        if let watchlist { fields.append(("watchlist", .array(watchlist.map { .string($0) }))) }
        return JSONValue.orderedObject(fields)
    }

    /// Sends `pusher:signin` signed for `user` (or with the given `userData` and `auth`) and waits for the answer.
    public func signIn(
        _ connection: ProbeConnection, user: String, info: JSONValue? = nil, watchlist: [String]? = nil,
        userData: String? = nil, auth: String? = nil
    ) async -> SignInAnswer {
        let userData = userData ?? self.userData(user: user, info: info, watchlist: watchlist)
        let auth =
            auth
            ?? UserAuthSignature.auth(
                key: target.key, secret: target.secret, socketID: connection.socketID,
                userData: userData)
        let from = connection.socket.count
        connection.socket.send(
            event: PusherEventName.signin,
            data: .object(["auth": .string(auth), "user_data": .string(userData)]))
        let frame = await connection.socket.waitFor(patience, from: from) { frame in
            if frame.isEnd { return true }
            guard frame.direction == .received, let event = frame.message?.event else { return false }
            return event == PusherEventName.signinSuccess || event == PusherEventName.error
        }
        guard let frame else { return .silent }
        if let message = frame.message, message.event == PusherEventName.signinSuccess { return .success(message) }
        return .refused(SubscribeAnswer.describe(frame))
    }

    /// An event to one user: on `#server-to-user-ID` through `POST /events`, as the server SDKs' `sendToUser` does.
    public func sendToUser(node: Int = 0, _ user: String, event: String, data: String = "{}") async -> APIAnswer {
        await trigger(node: node, channels: [PusherEventName.serverToUserPrefix + user], event: event, data: data)
    }

    /// Closes every connection of `user`: `POST /users/ID/terminate_connections`, as the server SDKs'
    /// `terminateUserConnections` does.
    public func terminateConnections(of user: String) async -> APIAnswer {
        await request(method: "POST", path: "/users/\(user)/terminate_connections", body: "{}")
    }
}
