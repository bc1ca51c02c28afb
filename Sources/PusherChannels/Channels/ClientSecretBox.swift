import Foundation
import PusherProtocol

/// NaCl secretbox (XSalsa20-Poly1305) for `private-encrypted-` channels: the client's side, which opens the events it
/// receives (and seals, for tests and tools), in Pusher's `{"nonce":…,"ciphertext":…}` form. The cipher is
/// PusherProtocol's `SecretBox` (Swift, no system library); the server's simulator uses the same one through
/// `ServerSecretBox` in PushtopServer.
public enum ClientSecretBox {
    /// Key length in bytes (the cipher's: `SecretBox.keySize`).
    public static let keySize = SecretBox.keySize
    /// Nonce length in bytes (`SecretBox.nonceSize`).
    public static let nonceSize = SecretBox.nonceSize
    /// Length of the Poly1305 MAC in bytes (`SecretBox.macSize`).
    public static let macSize = SecretBox.macSize

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

    /// Decrypts `ciphertext` (MAC included) with `key` and `nonce`.
    public static func open(ciphertext: [UInt8], nonce: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        do {
            return try SecretBox.open(ciphertext, nonce: nonce, key: key)
        } catch {
            throw Failure(error)
        }
    }

    /// Encrypts `message` with `key` and `nonce`; the result carries the MAC.
    public static func seal(message: [UInt8], nonce: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        do {
            return try SecretBox.seal(message, nonce: nonce, key: key)
        } catch {
            throw Failure(error)
        }
    }

    /// A random nonce, from the system's secure generator.
    public static func randomNonce() -> [UInt8] { SecretBox.randomNonce() }

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

extension ClientSecretBox.Failure {
    /// The client's failure for a `SecretBox` failure.
    init(_ failure: SecretBox.Failure) {
        switch failure {
        case .badKey(let size): self = .badKey(size: size)
        case .badNonce(let size): self = .badNonce(size: size)
        case .truncated: self = .malformedPayload("ciphertext shorter than its MAC")
        case .authenticationFailed: self = .authenticationFailed
        }
    }
}
