import Foundation
import PusherProtocol

/// Signs subscriptions locally with the app secret: for development and tests only, since the secret must
/// never ship in a client.
public struct SecretAuthorizer: Authorizer {
    /// The app key (the part before `:` in `auth`).
    public var key: String
    /// The app secret the signatures are made with.
    public var secret: String
    /// The presence identity: `user_id` and `user_info` in `channel_data`.
    public var userID: String
    /// The presence `user_info`; left out of `channel_data` when `nil`.
    public var userInfo: JSONValue?
    /// The app's encryption master key (32 bytes), needed to derive keys of `private-encrypted-` channels.
    public var encryptionMasterKey: [UInt8]?

    /// - Parameters:
    ///   - key: the app key.
    ///   - secret: the app secret.
    ///   - userID: the `user_id` signed into presence `channel_data`.
    ///   - userInfo: the `user_info` signed with it, if any.
    ///   - encryptionMasterKey: the app's 32-byte encryption master key; without it encrypted channels fail with
    ///     ``AuthError/unsupported(_:)``.
    public init(
        key: String, secret: String, userID: String, userInfo: JSONValue? = nil,
        encryptionMasterKey: [UInt8]? = nil
    ) {
        self.key = key
        self.secret = secret
        self.userID = userID
        self.userInfo = userInfo
        self.encryptionMasterKey = encryptionMasterKey
    }

    public func authorize(channel: String, socketID: String) async throws -> ChannelAuthorization {
        switch ChannelKind(channelName: channel) {
        case .presence:
            var member: [String: JSONValue] = ["user_id": .string(userID)]
            if let userInfo { member["user_info"] = userInfo }
            let channelData = JSONValue.object(member).jsonString
            return ChannelAuthorization(
                auth: ChannelAuthSignature.auth(
                    key: key, secret: secret, socketID: socketID, channel: channel, channelData: channelData),
                channelData: channelData)
        case .encrypted:
            guard let encryptionMasterKey else {
                throw AuthError.unsupported("\(channel) needs the app's encryption master key to sign locally")
            }
            let shared = ChannelAuthSignature.sharedSecret(channel: channel, masterKey: encryptionMasterKey)
            return ChannelAuthorization(
                auth: ChannelAuthSignature.auth(key: key, secret: secret, socketID: socketID, channel: channel),
                sharedSecret: Data(shared).base64EncodedString())
        case .private, .public, .cache:
            return ChannelAuthorization(
                auth: ChannelAuthSignature.auth(key: key, secret: secret, socketID: socketID, channel: channel))
        }
    }
}
