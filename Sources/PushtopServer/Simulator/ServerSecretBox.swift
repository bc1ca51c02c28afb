import Foundation
import PusherProtocol

/// NaCl secretbox (XSalsa20-Poly1305) as Pusher's encrypted channels use it: the server's side, which seals what the
/// simulator publishes on encrypted channels. The cipher is PusherProtocol's `SecretBox` (the client's
/// `ClientSecretBox` in PusherChannels uses the same one).
public enum ServerSecretBox {
    /// Encrypts `plaintext` with a 32-byte key under a fresh random nonce; returns the `data` of an
    /// encrypted-channel event: `{"nonce":"<base64>","ciphertext":"<base64>"}` as JSON text.
    public static func sealForPusher(_ plaintext: String, key: [UInt8]) -> String {
        precondition(key.count == SecretBox.keySize, "secretbox keys are 32 bytes")
        let nonce = SecretBox.randomNonce()
        // Sizes are checked above, so sealing cannot fail.
        let ciphertext = (try? SecretBox.seal(Array(plaintext.utf8), nonce: nonce, key: key)) ?? []
        return
            "{\"ciphertext\":\"\(Data(ciphertext).base64EncodedString())\",\"nonce\":\"\(Data(nonce).base64EncodedString())\"}"
    }

    /// Decrypts what ``sealForPusher(_:key:)`` produced; `nil` when it does not authenticate.
    public static func openFromPusher(ciphertext: [UInt8], nonce: [UInt8], key: [UInt8]) -> String? {
        guard let message = try? SecretBox.open(ciphertext, nonce: nonce, key: key) else { return nil }
        return String(decoding: message, as: UTF8.self)
    }
}
