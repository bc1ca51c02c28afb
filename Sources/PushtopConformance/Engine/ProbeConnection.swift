import PusherProtocol

/// A ``ProbeSocket`` that the server accepted: its socket id and the activity timeout it announced.
public struct ProbeConnection: Sendable {
    public let socket: ProbeSocket
    public let socketID: String
    /// `activity_timeout` from `pusher:connection_established`, when it had one.
    public let activityTimeout: Double?
    /// The node it is connected to (an index into ``ConformanceTarget/nodes``).
    public let node: Int
}

/// How a subscription request ended.
public enum SubscribeAnswer: Sendable {
    /// `pusher_internal:subscription_succeeded` for the channel.
    case succeeded(ProbeFrame)
    /// Refused: a `pusher:error`, a `pusher:subscription_error`, or the connection closed; the frame says which.
    case refused(ProbeFrame)
    /// Nothing within the wait.
    case silent

    /// How the refusal showed, for a message: `pusher:error 4009 "…"`, `close 4009`.
    public var refusal: String? {
        guard case .refused(let frame) = self else { return nil }
        return SubscribeAnswer.describe(frame)
    }

    static func describe(_ frame: ProbeFrame) -> String {
        if case .close(let code, let reason) = frame.kind { return "close \(code.map(String.init) ?? "-") \(reason)" }
        if case .ended(let why) = frame.kind { return "the connection ended (\(why))" }
        guard let message = frame.message else { return frame.text ?? "?" }
        let data = message.dataJSON
        let code = data?["code"]?.intValue.map { " \($0)" } ?? data?["status"]?.intValue.map { " status \($0)" } ?? ""
        let text = data?["message"]?.stringValue ?? data?["error"]?.stringValue ?? message.dataText ?? ""
        return "\(message.event)\(code)\(text.isEmpty ? "" : " \"\(text.prefix(120))\"")"
    }
}
