import Crypto
import Foundation

/// Checks a received webhook's `X-Pusher-Key` and `X-Pusher-Signature` (hex HMAC-SHA256 of the raw body, keyed with
/// the app's secret) against the known apps, and when they do not verify, says the likely cause.
public struct WebhookSignatureCheck: Sendable {
    /// What the check found.
    public enum Verdict: Sendable, Hashable {
        /// No app is known: nothing can be checked (every webhook is shown, unverified).
        case unchecked
        /// The signature is the named app's.
        case verified(WebhookCredential)
        /// It does not verify: what the key's secret gives (`nil` for an unknown key), what arrived, the likely cause.
        case rejected(appID: String?, expected: String?, received: String?, cause: String)
    }

    /// The causes a rejection names (the `cause` of a `webhook_rejected` row).
    public enum Cause {
        public static let wrongSecret = "wrong secret"
        public static let reencoded = "body re-encoded by a proxy"
        public static let otherApp = "key of another app"
        public static let unknownKey = "unknown key"
        public static let missingKey = "no X-Pusher-Key header"
        public static let missingSignature = "no X-Pusher-Signature header"
    }

    public var credentials: [WebhookCredential]

    public init(credentials: [WebhookCredential]) {
        self.credentials = credentials
    }

    /// Checks one request: `key` and `signature` are the headers' values (`nil` when absent), `body` the raw body.
    public func check(key: String?, signature: String?, body: [UInt8]) -> Verdict {
        guard !credentials.isEmpty else { return .unchecked }
        let received = signature?.trimmingCharacters(in: .whitespaces).lowercased()
        let named = key.flatMap { k in credentials.first { $0.key == k } }
        let expected = named.map { Self.signature(secret: $0.secret, body: body) }
        if let named, let expected, let received, Self.same(expected, received) { return .verified(named) }
        func reject(_ cause: String) -> Verdict {
            .rejected(appID: named?.appID, expected: expected, received: signature, cause: cause)
        }
        guard let received, !received.isEmpty else { return reject(Cause.missingSignature) }
        // The signature of another known app over these very bytes: the sender used that app's key and secret pair
        // wrongly (or the key header names the wrong app).
        let others = credentials.filter { $0.key != named?.key }
        if others.contains(where: { Self.same(Self.signature(secret: $0.secret, body: body), received) }) {
            return reject(Cause.otherApp)
        }
        guard let named else {
            guard key != nil else { return reject(Cause.missingKey) }
            return reject(Cause.unknownKey)
        }
        // The signature of the same JSON written another way: something between the sender and here re-encoded it.
        for variant in Self.reencodings(of: body) where variant != body {
            for credential in [named] + others
            where Self.same(Self.signature(secret: credential.secret, body: variant), received) {
                return reject(Cause.reencoded)
            }
        }
        return reject(Cause.wrongSecret)
    }

    /// Hex HMAC-SHA256 of `body` keyed with `secret`.
    public static func signature(secret: String, body: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// The same JSON as other encoders write it: compact or pretty, keys sorted or not, `/` escaped or not, with and
    /// without a trailing newline. Empty when the body is not JSON.
    static func reencodings(of body: [UInt8]) -> [[UInt8]] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) else {
            return []
        }
        var out: [[UInt8]] = []
        let layouts: [JSONSerialization.WritingOptions] = [
            [], [.sortedKeys], [.prettyPrinted], [.prettyPrinted, .sortedKeys],
        ]
        for layout in layouts {
            for slashes in [JSONSerialization.WritingOptions.withoutEscapingSlashes, []] {
                guard
                    let data = try? JSONSerialization.data(
                        withJSONObject: object, options: layout.union(slashes).union(.fragmentsAllowed))
                else { continue }
                let bytes = Array(data)
                out.append(bytes)
                out.append(bytes + [0x0A])
            }
        }
        // The body itself with its trailing newline changed.
        if body.last == 0x0A { out.append(Array(body.dropLast())) } else { out.append(body + [0x0A]) }
        // The body with spaces after `:` and `,` (Python's json.dumps default) or without them.
        if let text = String(bytes: body, encoding: .utf8) {
            out.append(
                Array(
                    text.replacingOccurrences(of: "\":", with: "\": ").replacingOccurrences(of: ",\"", with: ", \"")
                        .utf8))
        }
        return out
    }
}
