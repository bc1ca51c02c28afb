import Foundation
import PusherProtocol

/// Checks the signature of an HTTP API request, as Pusher does.
///
/// The query must carry `auth_key` (the app's key), `auth_timestamp` (within ``maxClockSkew`` seconds of the
/// server's clock), `auth_version` `1.0`, `body_md5` (hex MD5 of a non-empty body) and `auth_signature`, the hex
/// HMAC-SHA256 of `METHOD\nPATH\nQUERY` over every other parameter sorted by key.
package struct APIRequestVerifier: Sendable {
    var key: String
    var secret: String {
        didSet { signer = HMACSigner(secret: secret) }
    }
    /// Seconds a request's timestamp may differ from the server's clock.
    var maxClockSkew: Int = 600
    private static let required = ["auth_key", "auth_timestamp", "auth_version", "auth_signature"]
    /// The secret's HMAC key, prepared once.
    private var signer: HMACSigner

    package init(key: String, secret: String, maxClockSkew: Int = 600) {
        self.key = key
        self.secret = secret
        self.maxClockSkew = maxClockSkew
        signer = HMACSigner(secret: secret)
    }

    /// - Throws: ``APIFailure`` (401 for credentials, signature and time; 400 for a wrong body hash).
    package func verify(method: String, path: String, parameters: [String: String], body: [UInt8], now: Date = Date())
        throws(APIFailure)
    {
        try verify(method: method, path: path, query: QueryParameters(parameters), body: body, now: now)
    }

    /// - Throws: ``APIFailure`` (401 for credentials, signature and time; 400 for a wrong body hash).
    func verify(method: String, path: String, query parameters: QueryParameters, body: [UInt8], now: Date = Date())
        throws(APIFailure)
    {
        if Self.required.contains(where: { parameters[$0] == nil }) {
            let missing = Self.required.filter { parameters[$0] == nil }
            throw .unauthorized(
                "Missing authentication parameter(s): \(missing.joined(separator: ", "))", rule: "auth_missing")
        }
        let authKey = parameters["auth_key"]!
        guard ChannelAuthSignature.constantTimeEquals(authKey, key) else {
            throw .unauthorized("Unknown auth_key '\(authKey)'", rule: "auth_key")
        }
        guard parameters["auth_version"] == "1.0" else {
            throw .unauthorized(
                "Unsupported auth_version '\(parameters["auth_version"]!)': only 1.0 is supported", rule: "auth_version"
            )
        }
        let serverTime = Int(now.timeIntervalSince1970)
        guard let timestamp = Int(parameters["auth_timestamp"]!) else {
            throw .unauthorized(
                "auth_timestamp '\(parameters["auth_timestamp"]!)' is not a number of seconds", rule: "timestamp")
        }
        guard abs(serverTime - timestamp) <= maxClockSkew else {
            let skew = serverTime - timestamp
            throw .unauthorized(
                "Timestamp expired: Given timestamp (\(timestamp)) not within \(maxClockSkew)s of server time (\(serverTime))",
                rule: "timestamp",
                detail:
                    "auth_timestamp is \(abs(skew)) seconds \(skew > 0 ? "behind" : "ahead of") the server's clock (allowed: \(maxClockSkew) s)"
            )
        }
        let bodyMD5 = APIRequestSignature.bodyMD5(body)
        if let given = parameters["body_md5"] {
            guard given.lowercased() == bodyMD5 else {
                throw APIFailure(
                    status: 400, message: "body_md5 '\(given)' does not match the MD5 of the request body (\(bodyMD5))",
                    rule: "body_md5")
            }
        } else if !body.isEmpty {
            throw APIFailure(
                status: 400, message: "Missing body_md5: a request with a body must sign the body's hex MD5",
                rule: "body_md5")
        }
        let given = parameters["auth_signature"]!.lowercased()
        let expected = signer.hex(
            APIRequestSignature.stringToSign(method: method, path: path, pairs: parameters.pairs))
        if ChannelAuthSignature.constantTimeEquals(expected, given) { return }
        // A client may have signed the decoded path (Foundation's decoder only when there is something to decode).
        if path.utf8.contains(UInt8(ascii: "%")), let decoded = path.removingPercentEncoding, decoded != path {
            let expected = signer.hex(
                APIRequestSignature.stringToSign(method: method, path: decoded, pairs: parameters.pairs))
            if ChannelAuthSignature.constantTimeEquals(expected, given) { return }
        }
        let stringToSign = APIRequestSignature.stringToSign(method: method, path: path, pairs: parameters.pairs)
            .replacingOccurrences(of: "\n", with: "\\n")
        throw .unauthorized(
            "Invalid signature: you should have sent HmacSHA256Hex(\"\(stringToSign)\", your_secret_key), but you sent \"\(given)\"",
            rule: "signature")
    }
}
