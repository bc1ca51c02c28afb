import CSodium
import Foundation

/// NaCl secretbox (XSalsa20-Poly1305) as Pusher's encrypted channels use it, through libsodium: the server's side,
/// which seals what the simulator publishes on encrypted channels. (The client's side is `ClientSecretBox` in
/// PusherChannels.)
public enum ServerSecretBox {
    /// Encrypts `plaintext` with a 32-byte key; returns the `data` of an encrypted-channel event:
    /// `{"nonce":"<base64>","ciphertext":"<base64>"}` as JSON text.
    public static func sealForPusher(_ plaintext: String, key: [UInt8]) -> String {
        precondition(key.count == Int(crypto_secretbox_KEYBYTES), "secretbox keys are 32 bytes")
        _ = sodium_init()
        var nonce = [UInt8](repeating: 0, count: Int(crypto_secretbox_NONCEBYTES))
        randombytes_buf(&nonce, nonce.count)
        let message = Array(plaintext.utf8)
        var ciphertext = [UInt8](repeating: 0, count: message.count + Int(crypto_secretbox_MACBYTES))
        _ = crypto_secretbox_easy(&ciphertext, message, UInt64(message.count), nonce, key)
        return
            "{\"ciphertext\":\"\(Data(ciphertext).base64EncodedString())\",\"nonce\":\"\(Data(nonce).base64EncodedString())\"}"
    }

    /// Decrypts what ``sealForPusher(_:key:)`` produced; `nil` when it does not authenticate.
    public static func openFromPusher(ciphertext: [UInt8], nonce: [UInt8], key: [UInt8]) -> String? {
        guard key.count == Int(crypto_secretbox_KEYBYTES), nonce.count == Int(crypto_secretbox_NONCEBYTES),
            ciphertext.count >= Int(crypto_secretbox_MACBYTES)
        else { return nil }
        _ = sodium_init()
        var message = [UInt8](repeating: 0, count: ciphertext.count - Int(crypto_secretbox_MACBYTES))
        guard crypto_secretbox_open_easy(&message, ciphertext, UInt64(ciphertext.count), nonce, key) == 0 else {
            return nil
        }
        return String(decoding: message, as: UTF8.self)
    }
}
