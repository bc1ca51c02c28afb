import PusherProtocol

/// What a private, presence or encrypted subscription needs from the app's server.
public struct ChannelAuthorization: Sendable, Hashable {
    /// `key:signature`.
    public var auth: String
    /// Presence only: the JSON text `{"user_id":…,"user_info":…}` that was signed.
    public var channelData: String?
    /// Encrypted channels only: the base64 32-byte key for NaCl secretbox.
    public var sharedSecret: String?

    /// An authorization with the given fields.
    /// - Parameters:
    ///   - auth: `key:signature`.
    ///   - channelData: presence channels only: the signed `channel_data` JSON text.
    ///   - sharedSecret: encrypted channels only: the base64 32-byte key.
    public init(auth: String, channelData: String? = nil, sharedSecret: String? = nil) {
        self.auth = auth
        self.channelData = channelData
        self.sharedSecret = sharedSecret
    }

    /// Reads the JSON an auth endpoint returns: `{"auth":…, "channel_data":…, "shared_secret":…}`.
    /// - Throws: ``AuthError/malformedResponse(_:)`` saying what is missing.
    public init(responseBody: String) throws(AuthError) {
        let answer = try AuthEndpointAnswer(responseBody: responseBody)
        self.auth = answer.auth
        switch answer.fields["channel_data"] {
        case .string(let s)?: self.channelData = s
        case nil, .null?: self.channelData = nil
        case let other?: self.channelData = other.jsonString
        }
        self.sharedSecret = answer.fields["shared_secret"]?.stringValue
    }
}

/// Authorizes subscriptions to private, presence and encrypted channels.
///
/// Implementations: ``EndpointAuthorizer`` (an HTTP endpoint of the app, as pusher-js's `authEndpoint`),
/// ``SecretAuthorizer`` (signs locally with the app secret: development only), and
/// ``CallbackAuthorizer`` (auth supplied by the caller). Conform to it for anything else.
public protocol Authorizer: Sendable {
    /// Returns the authorization for `channel` on the connection `socketID`.
    /// - Throws: ``AuthError``, or any error, reported as a subscription error for that channel only.
    func authorize(channel: String, socketID: String) async throws -> ChannelAuthorization
}

/// Why authorization failed.
public enum AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The endpoint answered with a non-2xx status.
    case status(Int, body: String)
    /// The endpoint did not answer in time.
    case timeout(seconds: Double)
    /// The endpoint answered 2xx but the body is not a valid authorization.
    case malformedResponse(String)
    /// The endpoint could not be reached.
    case unreachable(String)
    /// The channel needs authorization but no authorizer is configured.
    case noAuthorizer(channel: String)
    /// A local signer cannot authorize this channel (e.g. no encryption master key).
    case unsupported(String)

    /// The HTTP status, when there was one.
    public var status: Int? {
        if case .status(let code, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .status(let code, let body):
            return body.isEmpty ? "auth endpoint answered HTTP \(code)" : "auth endpoint answered HTTP \(code): \(body)"
        case .timeout(let seconds):
            return "auth endpoint did not answer within \(seconds) s"
        case .malformedResponse(let why):
            return "auth endpoint gave a malformed response: \(why)"
        case .unreachable(let why):
            return "auth endpoint unreachable: \(why)"
        case .noAuthorizer(let channel):
            return "\(channel) needs authorization: give --auth-endpoint or --secret"
        case .unsupported(let why):
            return why
        }
    }

    static func snippet(_ text: String, limit: Int = 200) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }
}
