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

    /// Whether `hexSignature` (lower-case hex) signs the request, compared in constant time. The string to sign is
    /// assembled in a temporary buffer (on the stack when it is small) and no `String` is made: the server checks a
    /// signature per HTTP API request, and building the strings cost more than the HMAC's own hashing.
    public static func isSignature(
        _ hexSignature: String, method: String, path: String, pairs: [(name: String, value: String)],
        signer: HMACSigner
    ) -> Bool {
        withStringToSign(method: method, path: path, pairs: pairs) { signer.isHexSignature(hexSignature, of: $0) }
    }

    /// Calls `body` with the string to sign as UTF-8, assembled in a temporary buffer.
    static func withStringToSign<Result>(
        method: String, path: String, pairs parameters: [(name: String, value: String)],
        _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: SignedPair.self, capacity: parameters.count) { slots in
            var count = 0
            var bytes = method.utf8.count + path.utf8.count + 2
            for (key, value) in parameters {
                let lower = key.lowercasedIfNeeded
                guard lower != "auth_signature" else { continue }
                slots.initializeElement(at: count, to: SignedPair(key: lower, value: value))
                count += 1
                bytes += lower.utf8.count + value.utf8.count + 2
            }
            var pairs = UnsafeMutableBufferPointer(rebasing: slots[..<count])
            defer { _ = pairs.deinitialize() }
            // Keys equal once lower-cased (auth_key, AUTH_KEY) are ordered by value: a dictionary's order varies.
            pairs.sort { ($0.key, $0.value) < ($1.key, $1.value) }
            return withUnsafeTemporaryAllocation(byteCount: bytes, alignment: 1) { out in
                var end = 0
                func put(_ text: String) {
                    var text = text
                    text.withUTF8 { source in
                        UnsafeMutableRawBufferPointer(rebasing: out[end..<(end + source.count)])
                            .copyMemory(from: UnsafeRawBufferPointer(source))
                        end += source.count
                    }
                }
                func put(_ byte: UInt8) {
                    out[end] = byte
                    end += 1
                }
                let lowerCase = method.utf8.contains { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
                put(lowerCase ? method.uppercased() : method)
                put(UInt8(ascii: "\n"))
                put(path)
                put(UInt8(ascii: "\n"))
                for index in 0..<pairs.count {
                    if index > 0 { put(UInt8(ascii: "&")) }
                    put(pairs[index].key)
                    put(UInt8(ascii: "="))
                    put(pairs[index].value)
                }
                return body(UnsafeRawBufferPointer(rebasing: out[..<end]))
            }
        }
    }

    /// A parameter in the string to sign (a struct, not a tuple: its type needs no metadata made at run time).
    private struct SignedPair {
        var key: String
        var value: String
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
