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
        var pairs: [(key: String, value: String)] = []
        pairs.reserveCapacity(parameters.count)
        for (key, value) in parameters {
            let lower = key.lowercasedIfNeeded
            if lower != "auth_signature" { pairs.append((lower, value)) }
        }
        // Keys equal once lower-cased (auth_key, AUTH_KEY) are ordered by value: a dictionary's order varies.
        pairs.sort { ($0.key, $0.value) < ($1.key, $1.value) }
        var out = method.uppercased()
        out.reserveCapacity(out.utf8.count + path.utf8.count + 2 + pairs.count * 48)
        out += "\n"
        out += path
        out += "\n"
        for (index, pair) in pairs.enumerated() {
            if index > 0 { out += "&" }
            out += pair.key
            out += "="
            out += pair.value
        }
        return out
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
