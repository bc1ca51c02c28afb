import Crypto

/// Hex HMAC-SHA256 with one secret, its key prepared once: a server checking every API request of an app with the
/// same secret skips the key schedule (a tenth of a request's signature check) each time.
public struct HMACSigner: Sendable {
    private let prepared: HMAC<SHA256>

    public init(secret: String) {
        prepared = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
    }

    /// The same as ``ChannelAuthSignature/hmacHex(secret:message:)`` with this signer's secret.
    public func hex(_ message: String) -> String {
        var message = message
        return ChannelAuthSignature.hex(message.withUTF8 { code(of: UnsafeRawBufferPointer($0)) })
    }

    /// Whether `signature` is the lower-case hex HMAC of `message`, compared in constant time; no `String` is made
    /// (the server checks one per HTTP API request).
    public func isHexSignature(_ signature: String, of message: UnsafeRawBufferPointer) -> Bool {
        var signature = signature
        return code(of: message).withUnsafeBytes { digest in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * digest.count) { hex in
                let count = ChannelAuthSignature.writeHex(digest, into: hex)
                return signature.withUTF8 {
                    ChannelAuthSignature.constantTimeEquals(UnsafeBufferPointer(rebasing: hex[..<count]), $0)
                }
            }
        }
    }

    private func code(of message: UnsafeRawBufferPointer) -> HashedAuthenticationCode<SHA256> {
        var mac = prepared
        mac.update(data: message)
        return mac.finalize()
    }
}
