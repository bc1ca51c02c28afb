import PusherProtocol

/// The expected signature of an authorization next to the received one, and, when they differ, the first
/// field that explains it: the key, the socket id, the channel, or the presence channel_data.
public struct SignatureCheck: Sendable, Hashable {
    public enum Verdict: Sendable, Hashable {
        /// The received signature is the one the secret gives.
        case matches
        /// The `auth` value is not `key:signature`.
        case malformed
        /// Signed for another app key.
        case wrongKey(received: String)
        /// Signed for an earlier socket id.
        case wrongSocketID(signedFor: String)
        /// Signed for another channel.
        case wrongChannel(signedFor: String)
        /// The channel_data was left out of the signed string, or differs from the one sent.
        case wrongChannelData
        /// Nothing known explains it: another secret, or a signed string that differs elsewhere.
        case wrongSecret

        /// One line for the inspector.
        public var text: String {
            switch self {
            case .matches: return "✓ signature matches"
            case .malformed: return "✗ auth is not key:signature"
            case .wrongKey(let received): return "✗ wrong key: signed with key \(received)"
            case .wrongSocketID(let id):
                return "✗ wrong socket id: signed for \(id), another connection of this dashboard"
            case .wrongChannel(let channel): return "✗ wrong channel: signed for \(channel)"
            case .wrongChannelData: return "✗ wrong channel_data: the signed string leaves it out or differs"
            case .wrongSecret: return "✗ wrong secret (or the signed string differs in a way not found)"
            }
        }
    }

    public var expected: String
    public var received: String
    public var verdict: Verdict

    /// Compares `trace`'s signature with the one `credentials` give; `otherSocketIDs` and `otherChannels` are
    /// tried to name the field that was signed wrongly.
    public init?(
        trace: AuthorizationTrace, credentials: KnownCredentials, otherSocketIDs: [String],
        otherChannels: [String]
    ) {
        guard let auth = trace.auth else { return nil }
        received = auth
        func sign(_ socketID: String, _ channel: String, _ data: String?) -> String {
            ChannelAuthSignature.hmacHex(
                secret: credentials.secret,
                message: ChannelAuthSignature.stringToSign(socketID: socketID, channel: channel, channelData: data))
        }
        expected = "\(credentials.key):" + sign(trace.socketID, trace.channel, trace.channelData)
        guard let colon = auth.firstIndex(of: ":") else {
            verdict = .malformed
            return
        }
        let key = String(auth[..<colon])
        let signature = String(auth[auth.index(after: colon)...])
        if ChannelAuthSignature.constantTimeEquals(expected, auth) {
            verdict = .matches
        } else if key != credentials.key {
            verdict = .wrongKey(received: key)
        } else if let id = otherSocketIDs.first(where: {
            $0 != trace.socketID && sign($0, trace.channel, trace.channelData) == signature
        }) {
            verdict = .wrongSocketID(signedFor: id)
        } else if let c = otherChannels.first(where: {
            $0 != trace.channel && sign(trace.socketID, $0, trace.channelData) == signature
        }) {
            verdict = .wrongChannel(signedFor: c)
        } else if trace.channelData != nil, sign(trace.socketID, trace.channel, nil) == signature {
            verdict = .wrongChannelData
        } else {
            verdict = .wrongSecret
        }
    }
}
