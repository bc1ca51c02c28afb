import CSodium
import Foundation
import PusherProtocol

/// NaCl secretbox (XSalsa20-Poly1305) through libsodium, for `private-encrypted-` channels: the client's side, which
/// opens the events it receives (and seals, for tests and tools). The server's simulator has its own,
/// `ServerSecretBox` in PushtopServer.
public enum ClientSecretBox {
    /// Key length in bytes.
    public static let keySize = 32
    /// Nonce length in bytes.
    public static let nonceSize = 24
    /// Length of the Poly1305 MAC in bytes.
    public static let macSize = 16

    /// Why a payload could not be sealed or opened.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case badKey(size: Int)
        case badNonce(size: Int)
        case malformedPayload(String)
        case authenticationFailed

        public var description: String {
            switch self {
            case .badKey(let size): return "shared secret is \(size) bytes, expected \(ClientSecretBox.keySize)"
            case .badNonce(let size): return "nonce is \(size) bytes, expected \(ClientSecretBox.nonceSize)"
            case .malformedPayload(let why): return "encrypted payload is malformed: \(why)"
            case .authenticationFailed: return "ciphertext failed authentication (wrong key or tampered data)"
            }
        }
    }

    private static let ready: Bool = sodium_init() >= 0

    /// Decrypts `ciphertext` (MAC included) with `key` and `nonce`.
    public static func open(ciphertext: [UInt8], nonce: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        _ = ready
        guard key.count == keySize else { throw .badKey(size: key.count) }
        guard nonce.count == nonceSize else { throw .badNonce(size: nonce.count) }
        guard ciphertext.count >= macSize else { throw .malformedPayload("ciphertext shorter than its MAC") }
        var message = [UInt8](repeating: 0, count: ciphertext.count - macSize)
        let result = crypto_secretbox_open_easy(&message, ciphertext, UInt64(ciphertext.count), nonce, key)
        guard result == 0 else { throw .authenticationFailed }
        return message
    }

    /// Encrypts `message` with `key` and `nonce`; the result carries the MAC.
    public static func seal(message: [UInt8], nonce: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        _ = ready
        guard key.count == keySize else { throw .badKey(size: key.count) }
        guard nonce.count == nonceSize else { throw .badNonce(size: nonce.count) }
        var ciphertext = [UInt8](repeating: 0, count: message.count + macSize)
        _ = crypto_secretbox_easy(&ciphertext, message, UInt64(message.count), nonce, key)
        return ciphertext
    }

    /// A random nonce.
    public static func randomNonce() -> [UInt8] {
        _ = ready
        var nonce = [UInt8](repeating: 0, count: nonceSize)
        randombytes_buf(&nonce, nonceSize)
        return nonce
    }

    /// Decrypts a Pusher encrypted event's data, `{"nonce":base64,"ciphertext":base64}`, into its text.
    public static func openPusherPayload(_ dataText: String, key: [UInt8]) throws(Failure) -> String {
        guard let payload = try? JSONValue(parsing: dataText), case .object(let fields) = payload else {
            throw .malformedPayload("data is not a JSON object")
        }
        guard let nonceText = fields["nonce"]?.stringValue, let nonce = Data(base64Encoded: nonceText) else {
            throw .malformedPayload("no base64 \"nonce\"")
        }
        guard let cipherText = fields["ciphertext"]?.stringValue, let cipher = Data(base64Encoded: cipherText) else {
            throw .malformedPayload("no base64 \"ciphertext\"")
        }
        let plain = try open(ciphertext: Array(cipher), nonce: Array(nonce), key: key)
        return String(decoding: plain, as: UTF8.self)
    }

    /// Encrypts a text into Pusher's encrypted-event data, `{"nonce":…,"ciphertext":…}`.
    public static func sealPusherPayload(_ text: String, key: [UInt8]) throws(Failure) -> String {
        let nonce = randomNonce()
        let cipher = try seal(message: Array(text.utf8), nonce: nonce, key: key)
        return JSONValue.object([
            "nonce": .string(Data(nonce).base64EncodedString()),
            "ciphertext": .string(Data(cipher).base64EncodedString()),
        ]).jsonString
    }
}
