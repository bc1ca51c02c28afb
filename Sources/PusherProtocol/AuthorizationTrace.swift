import Foundation

/// What one channel authorization did: where it went, how long it took, what came back and what was signed.
///
/// The client publishes one per authorization attempt (``ClientEvent/authorization(_:)``) so that tools can show
/// why a subscription was refused. It carries the `auth` signature the authorizer returned but never a secret:
/// ``responseExcerpt`` has its `shared_secret` values removed.
public struct AuthorizationTrace: Sendable, Hashable {
    /// The channel the authorization was for.
    public var channel: String
    /// The socket id of the connection it was for (part of the signed string).
    public var socketID: String
    /// Who authorized: the endpoint's URL, `local secret`, or `callback`.
    public var authorizer: String
    /// Seconds since 1970 when the authorization started.
    public var startedAt: Double
    /// Seconds the authorization took.
    public var duration: Double
    /// The endpoint's HTTP status, when there was an HTTP request.
    public var status: Int?
    /// The start of the endpoint's response body (at most ``excerptLimit`` bytes), `shared_secret` removed.
    public var responseExcerpt: String?
    /// The `auth` value received: `key:signature`.
    public var auth: String?
    /// The presence `channel_data` received (part of the signed string).
    public var channelData: String?
    /// Whether an encrypted channel's `shared_secret` came back.
    public var hasSharedSecret: Bool
    /// Why the authorization failed, when it did.
    public var error: String?

    /// The most response-body bytes a trace keeps.
    public static let excerptLimit = 2048

    /// A trace with the given fields; `responseExcerpt` is stored with its `shared_secret` values removed.
    public init(
        channel: String, socketID: String, authorizer: String, startedAt: Double, duration: Double,
        status: Int? = nil, responseExcerpt: String? = nil, auth: String? = nil, channelData: String? = nil,
        hasSharedSecret: Bool = false, error: String? = nil
    ) {
        self.channel = channel
        self.socketID = socketID
        self.authorizer = authorizer
        self.startedAt = startedAt
        self.duration = duration
        self.status = status
        self.responseExcerpt = responseExcerpt.map(AuthorizationTrace.redactedExcerpt)
        self.auth = auth
        self.channelData = channelData
        self.hasSharedSecret = hasSharedSecret
        self.error = error
    }

    /// The string the signature covers: `socket_id:channel[:channel_data]`.
    public var stringToSign: String {
        ChannelAuthSignature.stringToSign(socketID: socketID, channel: channel, channelData: channelData)
    }

    /// A response body cut to ``excerptLimit`` bytes with every `"shared_secret":"…"` value replaced.
    public static func redactedExcerpt(_ body: String) -> String {
        var text = Redaction.redactStringFields(["shared_secret"], in: body)
        if text.utf8.count > excerptLimit {
            text = String(decoding: text.utf8.prefix(excerptLimit), as: UTF8.self) + "…"
        }
        return text
    }
}

/// Removes secret material from JSON text without parsing it (it may be cut or malformed).
public enum Redaction {
    /// The text written instead of a secret.
    public static let marker = "<redacted>"

    /// Replaces the string value of each `"field":"…"` (also with spaces around the colon, and escaped as in
    /// a frame's `data` string, `\"field\":\"…\"`).
    public static func redactStringFields(_ fields: [String], in text: String) -> String {
        var out = text
        for field in fields {
            for (open, close) in [("\"\(field)\"", "\""), ("\\\"\(field)\\\"", "\\\"")] {
                out = redact(after: open, quote: close, in: out)
            }
        }
        return out
    }

    private static func redact(after name: String, quote: String, in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let r = rest.range(of: name) {
            result += rest[..<r.upperBound]
            rest = rest[r.upperBound...]
            // Skip spaces and the colon.
            var i = rest.startIndex
            while i < rest.endIndex, rest[i] == " " || rest[i] == ":" { i = rest.index(after: i) }
            guard rest[i...].hasPrefix(quote) else { continue }
            let valueStart = rest.index(i, offsetBy: quote.count)
            result += rest[..<valueStart]
            // The value ends at the next unescaped closing quote.
            var j = valueStart
            var end: String.Index?
            while j < rest.endIndex {
                if rest[j...].hasPrefix(quote),
                    quote == "\"" ? (j == valueStart || rest[rest.index(before: j)] != "\\") : true
                {
                    end = j
                    break
                }
                j = rest.index(after: j)
            }
            guard let end else {
                result += marker
                return result
            }
            let value = rest[valueStart..<end]
            // `auth` is `key:signature`: the key is public, the signature goes.
            if let colon = value.firstIndex(of: ":") {
                result += value[..<colon] + ":" + marker
            } else {
                result += marker
            }
            rest = rest[end...]
        }
        return result + rest
    }
}
