import PusherProtocol

/// The server's answer to an HTTP API request: any status, never thrown.
public struct APIAnswer: Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var body: String

    public var json: JSONValue? { JSONValue.parseIfJSON(body) }

    public var description: String {
        let text = body.count > 200 ? String(body.prefix(200)) + "…" : body
        return "HTTP \(status)\(text.isEmpty ? "" : " \(text.trimmingCharacters(in: .whitespacesAndNewlines))")"
    }
}

/// How a case signs an HTTP API request: correctly, or wrong in one chosen way.
public enum APISigning: Sendable, Hashable {
    /// As the official server SDKs sign.
    case valid
    /// No `auth_*` parameters at all.
    case unsigned
    /// Signed, then one character of the signature changed.
    case badSignature
    /// Signed with another secret.
    case wrongSecret
    /// `auth_key` of another app.
    case wrongKey
    /// A `body_md5` of other bytes than the body (signed, so only the MD5 is wrong).
    case badBodyMD5
    /// Signed correctly with a timestamp this many seconds from now (negative: in the past).
    case timestampOffset(Int)
}
