import Crypto
import Foundation

/// Channel authorization signatures, as Pusher's server libraries compute them.
///
/// The signature is the hex HMAC-SHA256, keyed with the app secret, of `socket_id:channel_name`, with
/// `:channel_data` appended for presence channels. The `auth` field a client sends is `key:signature`.
public enum ChannelAuthSignature {
    /// The text that is signed.
    public static func stringToSign(socketID: String, channel: String, channelData: String? = nil) -> String {
        if let channelData { return "\(socketID):\(channel):\(channelData)" }
        return "\(socketID):\(channel)"
    }

    /// Hex HMAC-SHA256 of `message` keyed with `secret`.
    public static func hmacHex(secret: String, message: String) -> String {
        HMACSigner(secret: secret).hex(message)
    }

    /// The `auth` value for a subscription: `key:hexsignature`.
    public static func auth(key: String, secret: String, socketID: String, channel: String, channelData: String? = nil)
        -> String
    {
        let signature = hmacHex(
            secret: secret, message: stringToSign(socketID: socketID, channel: channel, channelData: channelData))
        return "\(key):\(signature)"
    }

    /// Checks an `auth` value in constant time (the comparison does not stop at the first differing byte).
    public static func verify(
        auth: String, key: String, secret: String, socketID: String, channel: String, channelData: String? = nil
    ) -> Bool {
        let expected = self.auth(
            key: key, secret: secret, socketID: socketID, channel: channel, channelData: channelData)
        return constantTimeEquals(expected, auth)
    }

    /// The per-channel key of an encrypted channel: SHA-256 of the channel name followed by the master key.
    public static func sharedSecret(channel: String, masterKey: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Data(channel.utf8))
        hasher.update(data: masterKey)
        return Array(hasher.finalize())
    }

    /// Compares two strings without leaking, through timing, where they first differ.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var diff = UInt8(truncatingIfNeeded: x.count ^ y.count)
        for i in 0..<max(x.count, y.count) {
            let l = i < x.count ? x[i] : 0
            let r = i < y.count ? y[i] : 0
            diff |= l ^ r
        }
        return diff == 0 && x.count == y.count
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
