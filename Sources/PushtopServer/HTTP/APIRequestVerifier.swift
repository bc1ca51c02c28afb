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

    /// Checks who is asking, then what the request says: ``authenticate(method:path:query:)``, then
    /// ``check(query:body:now:)``.
    /// - Throws: ``APIFailure`` (401 for credentials, signature and time; 400 for a wrong body hash).
    package func verify(method: String, path: String, query: URLQuery, body: [UInt8], now: Date = Date())
        throws(APIFailure)
    {
        let signed = try authenticate(method: method, path: path, query: query)
        try check(query: signed, body: body, now: now)
    }

    /// Whether the request was signed with the app's secret: the auth parameters are there, `auth_key` is the app's
    /// and `auth_signature` is right. A request that fails here is a stranger's: its failure names a
    /// ``ServerRefusals/Reason`` and belongs to no app (no console row, no quota).
    ///
    /// The signature is over the decoded parameters (``URLQuery``: `+` is a space). A client that signed a literal
    /// `+` as itself (as this server read queries before the one rule) is accepted too: then the query is
    /// ``URLQuery/readingPlusLiterally``, and that reading is what the request says.
    /// - Returns: The reading of the query that the signature covers.
    /// - Throws: ``APIFailure`` 401.
    @discardableResult
    func authenticate(method: String, path: String, query parameters: URLQuery) throws(APIFailure) -> URLQuery {
        if Self.required.contains(where: { parameters[$0] == nil }) {
            let missing = Self.required.filter { parameters[$0] == nil }
            var failure = APIFailure.unauthorized(
                "Missing authentication parameter(s): \(missing.joined(separator: ", "))", rule: "auth_missing")
            failure.refusal = .unsigned
            throw failure
        }
        let authKey = parameters["auth_key"]!
        guard ChannelAuthSignature.constantTimeEquals(authKey, key) else {
            var failure = APIFailure.unauthorized("Unknown auth_key '\(ErrorText.excerpt(authKey))'", rule: "auth_key")
            failure.refusal = .wrongKey
            throw failure
        }
        let given = parameters["auth_signature"]!.lowercasedIfNeeded
        if signs(given, method: method, path: path, parameters) { return parameters }
        if let literal = parameters.readingPlusLiterally, signs(given, method: method, path: path, literal) {
            return literal
        }
        let stringToSign = APIRequestSignature.stringToSign(method: method, path: path, pairs: parameters.pairs)
            .replacingOccurrences(of: "\n", with: "\\n")
        var failure = APIFailure.unauthorized(
            "Invalid signature: you should have sent HmacSHA256Hex(\"\(stringToSign)\", your_secret_key), but you sent \"\(ErrorText.excerpt(given))\"",
            rule: "signature")
        failure.refusal = .badSignature
        throw failure
    }

    /// Whether `given` is the signature of the request, its path as sent or decoded.
    private func signs(_ given: String, method: String, path: String, _ parameters: URLQuery) -> Bool {
        func signs(path: String) -> Bool {
            APIRequestSignature.isSignature(given, method: method, path: path, pairs: parameters.pairs, signer: signer)
        }
        if signs(path: path) { return true }
        // A client may have signed the decoded path (Foundation's decoder only when there is something to decode).
        if path.utf8.contains(UInt8(ascii: "%")), let decoded = path.removingPercentEncoding, decoded != path {
            return signs(path: decoded)
        }
        return false
    }

    /// What a signed request says: `auth_version` 1.0, a fresh `auth_timestamp`, and `body_md5` the body's (`body`
    /// `nil`: the body was too large to read, so its hash is not checked).
    /// - Throws: ``APIFailure`` (401 for the version and the time; 400 for a wrong body hash).
    func check(query parameters: URLQuery, body: [UInt8]?, now: Date = Date()) throws(APIFailure) {
        guard parameters["auth_version"] == "1.0" else {
            throw .unauthorized(
                "Unsupported auth_version '\(ErrorText.excerpt(parameters["auth_version"] ?? ""))': only 1.0 is supported",
                rule: "auth_version")
        }
        let serverTime = Int(now.timeIntervalSince1970)
        guard let timestamp = parameters["auth_timestamp"].flatMap({ Int($0) }) else {
            throw .unauthorized(
                "auth_timestamp '\(ErrorText.excerpt(parameters["auth_timestamp"] ?? ""))' is not a number of seconds",
                rule: "timestamp")
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
        guard let body else { return }
        let bodyMD5 = APIRequestSignature.bodyMD5(body)
        if let given = parameters["body_md5"] {
            guard given.lowercasedIfNeeded == bodyMD5 else {
                throw APIFailure(
                    status: 400,
                    message:
                        "body_md5 '\(ErrorText.excerpt(given))' does not match the MD5 of the request body (\(bodyMD5))",
                    rule: "body_md5")
            }
        } else if !body.isEmpty {
            throw APIFailure(
                status: 400, message: "Missing body_md5: a request with a body must sign the body's hex MD5",
                rule: "body_md5")
        }
    }
}
