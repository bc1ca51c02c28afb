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
        // Over the strings' own UTF-8 (no copy into arrays: this runs for every signed HTTP API request).
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in constantTimeEquals(x, y) } }
    }

    /// Compares two byte strings without leaking, through timing, where they first differ.
    static func constantTimeEquals(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        var diff = UInt8(truncatingIfNeeded: x.count ^ y.count)
        for i in 0..<max(x.count, y.count) {
            let l = i < x.count ? x[i] : 0
            let r = i < y.count ? y[i] : 0
            diff |= l ^ r
        }
        return diff == 0 && x.count == y.count
    }

    /// Lower-case hex of `bytes` (a digest), written straight into the string's storage.
    static func hex(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { raw in
            String(unsafeUninitializedCapacity: 2 * raw.count) { out in writeHex(raw, into: out) }
        }
    }

    /// Writes `raw` as lower-case hex into `out` (twice its size); returns the bytes written.
    static func writeHex(_ raw: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let digits: StaticString = "0123456789abcdef"
        let table = digits.utf8Start
        for (index, byte) in raw.enumerated() {
            out[2 * index] = table[Int(byte >> 4)]
            out[2 * index + 1] = table[Int(byte & 0x0F)]
        }
        return 2 * raw.count
    }
}
