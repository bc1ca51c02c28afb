import Foundation
import PusherProtocol

/// NaCl secretbox (XSalsa20-Poly1305) as Pusher's encrypted channels use it: the server's side, which seals what the
/// simulator publishes on encrypted channels. The cipher is PusherProtocol's `SecretBox` (the client's
/// `ClientSecretBox` in PusherChannels uses the same one).
public enum ServerSecretBox {
    /// Encrypts `plaintext` with a 32-byte key under a fresh random nonce; returns the `data` of an
    /// encrypted-channel event: `{"nonce":"<base64>","ciphertext":"<base64>"}` as JSON text.
    ///
    /// Throws what `SecretBox.seal(_:nonce:key:)` throws (a key that is not 32 bytes): a box is never returned
    /// empty, and a ciphertext is never shorter than its 16-byte tag.
    public static func sealForPusher(_ plaintext: String, key: [UInt8]) throws(SecretBox.Failure) -> String {
        let nonce = SecretBox.randomNonce()
        let ciphertext = try SecretBox.seal(Array(plaintext.utf8), nonce: nonce, key: key)
        // A release build once returned from `seal` without a box (swiftlang/swift#90477): never publish that.
        guard ciphertext.count == plaintext.utf8.count + SecretBox.macSize else {
            throw .truncated(size: ciphertext.count)
        }
        return
            "{\"ciphertext\":\"\(Data(ciphertext).base64EncodedString())\",\"nonce\":\"\(Data(nonce).base64EncodedString())\"}"
    }

    /// Decrypts what ``sealForPusher(_:key:)`` produced; `nil` when it does not authenticate.
    public static func openFromPusher(ciphertext: [UInt8], nonce: [UInt8], key: [UInt8]) -> String? {
        guard let message = try? SecretBox.open(ciphertext, nonce: nonce, key: key) else { return nil }
        return String(decoding: message, as: UTF8.self)
    }
}
