/// User-authentication signatures (`pusher.signin()`), as Pusher's server libraries compute them.
///
/// The signature is the hex HMAC-SHA256, keyed with the app secret, of `socket_id::user::user_data`; the
/// `auth` field a client sends in `pusher:signin` is `key:signature`.
public enum UserAuthSignature {
    /// The text that is signed.
    public static func stringToSign(socketID: String, userData: String) -> String {
        "\(socketID)::user::\(userData)"
    }

    /// The `auth` value for a sign-in: `key:hexsignature`.
    public static func auth(key: String, secret: String, socketID: String, userData: String) -> String {
        "\(key):\(ChannelAuthSignature.hmacHex(secret: secret, message: stringToSign(socketID: socketID, userData: userData)))"
    }

    /// Checks an `auth` value in constant time.
    public static func verify(auth: String, key: String, secret: String, socketID: String, userData: String) -> Bool {
        ChannelAuthSignature.constantTimeEquals(
            self.auth(key: key, secret: secret, socketID: socketID, userData: userData), auth)
    }
}
