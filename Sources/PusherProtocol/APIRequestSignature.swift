import Crypto
import Foundation

/// Signing of Pusher HTTP API requests (`/apps/{app_id}/...`), as the official server SDKs do it.
///
/// The query carries `auth_key`, `auth_timestamp`, `auth_version=1.0`, `body_md5` (hex MD5 of a non-empty
/// body) and `auth_signature`: the hex HMAC-SHA256 of `METHOD\nPATH\nQUERY`, where QUERY is every other
/// parameter, keys lower-cased and sorted, joined as `k=v&k=v` without URL-encoding.
public enum APIRequestSignature {
    /// Hex MD5 of a request body.
    public static func bodyMD5(_ body: [UInt8]) -> String {
        ChannelAuthSignature.hex(Insecure.MD5.hash(data: body))
    }

    /// The string that is signed.
    public static func stringToSign(method: String, path: String, parameters: [String: String]) -> String {
        stringToSign(method: method, path: path, pairs: parameters.map { ($0.key, $0.value) })
    }

    /// The string that is signed, from the parameters as a list (each name once).
    public static func stringToSign(method: String, path: String, pairs parameters: [(name: String, value: String)])
        -> String
    {
        withStringToSign(method: method, path: path, pairs: parameters) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the string to sign as UTF-8, assembled in a temporary buffer (on the stack when it is
    /// small): the server checks a signature per HTTP API request, and building the `String` cost more than the
    /// HMAC's own hashing.
    public static func withStringToSign<Result>(
        method: String, path: String, pairs parameters: [(name: String, value: String)],
        _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: (key: String, value: String).self, capacity: parameters.count) { slots in
            var count = 0
            var bytes = method.utf8.count + path.utf8.count + 2
            for (key, value) in parameters {
                let lower = key.lowercasedIfNeeded
                guard lower != "auth_signature" else { continue }
                slots.initializeElement(at: count, to: (lower, value))
                count += 1
                bytes += lower.utf8.count + value.utf8.count + 2
            }
            var pairs = UnsafeMutableBufferPointer(rebasing: slots[..<count])
            defer { _ = pairs.deinitialize() }
            // Keys equal once lower-cased (auth_key, AUTH_KEY) are ordered by value: a dictionary's order varies.
            pairs.sort { ($0.key, $0.value) < ($1.key, $1.value) }
            let method = method.uppercased()
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes) { out in
                var end = 0
                func put(_ text: String) {
                    for byte in text.utf8 {
                        out[end] = byte
                        end += 1
                    }
                }
                func put(_ byte: UInt8) {
                    out[end] = byte
                    end += 1
                }
                put(method)
                put(UInt8(ascii: "\n"))
                put(path)
                put(UInt8(ascii: "\n"))
                for (index, pair) in pairs.enumerated() {
                    if index > 0 { put(UInt8(ascii: "&")) }
                    put(pair.key)
                    put(UInt8(ascii: "="))
                    put(pair.value)
                }
                return body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: out[..<end])))
            }
        }
    }

    /// Signs a request: returns every query parameter to send, `auth_signature` included.
    public static func sign(
        method: String, path: String, key: String, secret: String, body: [UInt8]?,
        parameters: [String: String] = [:], timestamp: Int = Int(Date().timeIntervalSince1970)
    ) -> [String: String] {
        var params = parameters
        params["auth_key"] = key
        params["auth_timestamp"] = String(timestamp)
        params["auth_version"] = "1.0"
        if let body, !body.isEmpty { params["body_md5"] = bodyMD5(body) }
        params["auth_signature"] = ChannelAuthSignature.hmacHex(
            secret: secret, message: stringToSign(method: method, path: path, parameters: params))
        return params
    }

    /// The signature expected for a request's parameters.
    public static func expectedSignature(method: String, path: String, secret: String, parameters: [String: String])
        -> String
    {
        ChannelAuthSignature.hmacHex(
            secret: secret, message: stringToSign(method: method, path: path, parameters: parameters))
    }
}
