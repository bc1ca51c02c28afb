import PusherProtocol

/// Signs the user locally with the app secret: for development and tests only, since the secret must never
/// ship in a client.
public struct SecretUserAuthenticator: UserAuthenticator {
    /// The app key (the part of `auth` before the colon).
    public var key: String
    /// The app secret that signs; never sent.
    public var secret: String
    /// The `user_data` object signed (it must hold a non-empty string `id`).
    public var userData: JSONValue

    /// Signs `user_data` `{"id": userID, "user_info": userInfo, "watchlist": watchlist}`.
    public init(key: String, secret: String, userID: String, userInfo: JSONValue? = nil, watchlist: [String] = []) {
        var fields: [String: JSONValue] = ["id": .string(userID)]
        if let userInfo { fields["user_info"] = userInfo }
        if !watchlist.isEmpty { fields["watchlist"] = .array(watchlist.map(JSONValue.string)) }
        self.init(key: key, secret: secret, userData: .object(fields))
    }

    /// Signs the given `user_data` object as it is.
    public init(key: String, secret: String, userData: JSONValue) {
        self.key = key
        self.secret = secret
        self.userData = userData
    }

    public func authenticate(socketID: String) async throws -> UserAuthentication {
        let text = userData.jsonString
        do {
            _ = try SignedInUser(userData: text)
        } catch {
            throw AuthError.unsupported("cannot sign in: \(error.description)")
        }
        return UserAuthentication(
            auth: UserAuthSignature.auth(key: key, secret: secret, socketID: socketID, userData: text), userData: text)
    }
}
