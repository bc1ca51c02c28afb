/// The payload of a WebSocket close frame, checked against RFC 6455 (sections 5.5.1 and 7.4) the same way by the
/// server and the client.
///
/// - Empty: a close without a status code (valid).
/// - One byte: not even a status code (1002).
/// - A status code that must not be sent (0-999, 1004-1006, 1015, 1016-2999, 5000 and above): 1002.
/// - A reason that is not well-formed UTF-8: 1007.
public enum WebSocketClosePayload {
    /// What a close payload says, or why it breaks the protocol.
    public enum Verdict: Equatable, Sendable {
        /// A well-formed close: its status code (`nil` for an empty payload) and reason.
        case valid(code: Int?, reason: String)
        /// The close frame breaks the protocol: fail the connection with `failWith` (1002 or 1007).
        case invalid(failWith: Int, why: String)
    }

    /// Checks a close frame's (unmasked) payload.
    public static func check(_ payload: UnsafeRawBufferPointer) -> Verdict {
        if payload.isEmpty { return .valid(code: nil, reason: "") }
        guard payload.count >= 2 else {
            return .invalid(failWith: 1002, why: "a close frame with a 1-byte payload (no room for a status code)")
        }
        let code = Int(payload[0]) << 8 | Int(payload[1])
        guard mayBeSent(code) else {
            return .invalid(failWith: 1002, why: "a close frame with status code \(code), which must not be sent")
        }
        let reason = UnsafeRawBufferPointer(rebasing: payload[2...])
        guard UTF8Validation.isValid(reason) else {
            return .invalid(failWith: 1007, why: "a close frame whose reason is not valid UTF-8")
        }
        return .valid(code: code, reason: String(decoding: reason, as: UTF8.self))
    }

    /// Checks a close frame's payload given as bytes.
    public static func check(_ payload: [UInt8]) -> Verdict {
        payload.withUnsafeBytes { check($0) }
    }

    /// The most bytes of UTF-8 a close frame's reason may take: a control frame's 125 less the 2-byte code.
    public static let maxReasonBytes = 123

    /// `reason` cut to fit a close frame: its first characters whose UTF-8 takes at most ``maxReasonBytes`` bytes,
    /// cut between characters so it stays valid UTF-8. What `serve`, the proxy and the client send.
    public static func fitting(_ reason: String) -> Substring {
        if reason.utf8.count <= maxReasonBytes { return reason[...] }
        var bytes = 0
        var end = reason.startIndex
        for index in reason.indices {
            bytes += reason[index].utf8.count
            guard bytes <= maxReasonBytes else { break }
            end = reason.index(after: index)
        }
        return reason[..<end]
    }

    /// A close frame's payload as every end sends it (`serve`, the proxy, the client): `code` (big-endian), then as
    /// much of `reason` as ``fitting(_:)`` keeps.
    public static func encoded(code: Int, reason: String) -> [UInt8] {
        let code = UInt16(clamping: code)
        var bytes = [UInt8(code >> 8), UInt8(code & 0xFF)]
        bytes.append(contentsOf: fitting(reason).utf8)
        return bytes
    }

    /// Whether an endpoint may put `code` in a close frame: 1000-1003 and 1007-1014 (defined by RFC 6455 and
    /// registered with IANA), 3000-3999 (registered for libraries and frameworks), 4000-4999 (private use, as
    /// Pusher's codes). 1004 is reserved; 1005, 1006 and 1015 are for reporting only, never for the wire.
    public static func mayBeSent(_ code: Int) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
