import Crypto
import Foundation

/// The `Sec-WebSocket-Key` of a client's upgrade request and the `Sec-WebSocket-Accept` that proves a server read
/// it (RFC 6455 section 4.2.2: base64 of the SHA-1 of the key and the protocol's GUID).
package enum WebSocketAccept {
    /// The GUID every WebSocket server appends to the client's key.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A fresh key: 16 random bytes in base64.
    package static func randomKey() -> String {
        Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server answers `key` with.
    package static func value(forKey key: String) -> String {
        Data(Insecure.SHA1.hash(data: Array((key + guid).utf8))).base64EncodedString()
    }
}
