import Crypto
import Foundation
import PusherProtocol

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
        /// The key is known, but no known secret signs these bytes or a re-encoding of them.
        public static let wrongSecret = "wrong secret"
        /// The key's secret (or a known one) signs the same JSON written another way: something re-encoded the body.
        public static let reencoded = "body re-encoded by a proxy"
        /// Another known app's secret signs the body, or the key is unknown and a known secret signs it.
        public static let otherApp = "key of another app"
        /// The key is no known app's, and no known secret signs the body.
        public static let unknownKey = "unknown key"
        /// No `X-Pusher-Key` header (and no known secret signs the body).
        public static let missingKey = "no X-Pusher-Key header"
        /// No `X-Pusher-Signature` header.
        public static let missingSignature = "no X-Pusher-Signature header"
    }

    /// The known apps (empty: nothing is checked).
    public var credentials: [WebhookCredential]

    /// A check against these apps.
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
        let secrets = ([named] + others).map(\.secret)
        let reencoded = Self.anyReencoding(of: body) { variant in
            variant != body && secrets.contains { Self.same(Self.signature(secret: $0, body: variant), received) }
        }
        if reencoded { return reject(Cause.reencoded) }
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

    /// Whether `match` holds for what the sender may have signed before something re-encoded the body we received:
    /// the same JSON compact (its keys in their order, sorted, or in Pusher's documented order), with `/` escaped as
    /// `\/` or not, with `", "` and `": "` (Python's default) or not, with and without a trailing newline. `false`
    /// when the body is not JSON. The variants are made one at a time (a body may be 1 MiB).
    static func anyReencoding(of body: [UInt8], _ match: ([UInt8]) -> Bool) -> Bool {
        guard let text = String(validating: body, as: UTF8.self), let value = JSONValue.parseIfJSON(text) else {
            return false
        }
        func toggledNewline(_ bytes: [UInt8]) -> [UInt8] {
            bytes.last == 0x0A ? Array(bytes.dropLast()) : bytes + [0x0A]
        }
        func either(_ layout: [UInt8]) -> Bool { match(layout) || match(toggledNewline(layout)) }
        if match(toggledNewline(body)) { return true }
        for slashes in [Slashes.keep, .escape, .unescape] {
            for spaced in [false, true] where either(relayout(body, spaced: spaced, slashes: slashes)) { return true }
        }
        // The sender's key order is lost when a proxy sorted the keys: try sorted keys and Pusher's documented order.
        for canonical in [Array(value.jsonString.utf8), pusherOrder(value)].compactMap({ $0 }) {
            for (spaced, slashes) in [(false, Slashes.keep), (false, .escape), (true, .keep), (true, .escape)]
            where either(relayout(canonical, spaced: spaced, slashes: slashes)) {
                return true
            }
        }
        return false
    }

    enum Slashes { case keep, escape, unescape }

    /// The payload with its keys in the order of Pusher's documentation (`time_ms`, `events`; in each event `name`,
    /// `channel`, then the event's own fields), compact; `nil` when it has no `events` array.
    static func pusherOrder(_ payload: JSONValue) -> [UInt8]? {
        guard let object = payload.objectValue, let events = object["events"]?.arrayValue else { return nil }
        let order = ["name", "channel", "user_id", "event", "data", "socket_id", "subscription_count"]
        func ordered(_ value: JSONValue) -> String {
            guard let fields = value.objectValue else { return value.jsonString }
            let known = order.compactMap { key in fields[key].map { (key, $0) } }
            let rest = fields.keys.sorted().filter { !order.contains($0) }.map { ($0, fields[$0]!) }
            return JSONValue.orderedObject(known + rest)
        }
        var text = "{"
        if let time = object["time_ms"] { text += "\"time_ms\":" + time.jsonString + "," }
        text += "\"events\":[" + events.map(ordered).joined(separator: ",") + "]"
        for key in object.keys.sorted() where key != "time_ms" && key != "events" {
            text += "," + JSONValue.orderedObject([(key, object[key]!)]).dropFirst().dropLast()
        }
        return Array((text + "}").utf8)
    }

    /// `json` without whitespace between tokens (keys keep their order), with `, ` and `: ` when `spaced`, and `/` in
    /// strings escaped or unescaped.
    static func relayout(_ json: [UInt8], spaced: Bool, slashes: Slashes) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        var inString = false
        var i = 0
        while i < json.count {
            let c = json[i]
            if inString {
                if c == UInt8(ascii: "\\"), i + 1 < json.count {
                    let next = json[i + 1]
                    if next == UInt8(ascii: "/"), slashes == .unescape {
                        out.append(next)
                    } else {
                        out += [c, next]
                    }
                    i += 2
                    continue
                }
                if c == UInt8(ascii: "\"") { inString = false }
                if c == UInt8(ascii: "/"), slashes == .escape { out.append(UInt8(ascii: "\\")) }
                out.append(c)
            } else {
                switch c {
                case 0x20, 0x09, 0x0A, 0x0D: break
                case UInt8(ascii: "\""):
                    inString = true
                    out.append(c)
                case UInt8(ascii: ","), UInt8(ascii: ":"):
                    out.append(c)
                    if spaced { out.append(0x20) }
                default: out.append(c)
                }
            }
            i += 1
        }
        return out
    }
}
