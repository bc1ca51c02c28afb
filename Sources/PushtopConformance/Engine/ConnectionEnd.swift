/// How a connection ended, judged on its own: RFC 6455 and Pusher's protocol close a connection with a close frame
/// (Pusher's refusals with their 4000-4099 code); a client told nothing but a dropped TCP connection sees 1006 and
/// reconnects as if the network had failed.
public enum ConnectionEnd: Sendable, Hashable, CustomStringConvertible {
    /// The server sent a close frame with this code (`nil`: none) and reason.
    case closed(code: Int?, reason: String)
    /// The TCP connection ended without a close frame from the server.
    case dropped(String)
    /// Still open when the wait ended.
    case open(after: Double)

    /// The close code, when the server sent a close frame with one.
    public var closeCode: Int? {
        if case .closed(let code, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .closed(let code, let reason):
            return "a close frame \(code.map(String.init) ?? "without a code")\(reason.isEmpty ? "" : " \"\(reason)\"")"
        case .dropped: return "the TCP connection dropped without a close frame"
        case .open(let after): return "the connection still open after \(Self.seconds(after)) s"
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

extension ProbeFrame {
    /// A frame that ends the conversation from the server's side: a close frame it sent, or the connection's end.
    public var isEnd: Bool {
        switch kind {
        case .ended: return true
        case .close: return direction == .received
        default: return false
        }
    }

    /// A frame by which the server refuses something: a `pusher:error`, its close frame, or the connection's end.
    /// The one "refused, closed or ended" test every case uses.
    public var isRefusal: Bool {
        isEnd || (direction == .received && message?.event == "pusher:error")
    }

    /// The code of a `pusher:error` frame or of a close frame.
    public var errorCode: Int? {
        if case .close(let code, _) = kind { return code }
        return message?.dataJSON?["code"]?.intValue
    }
}

extension ProbeSocket {
    /// Waits (up to `timeout`) for the connection to end and says how: a close frame from the server (a close frame
    /// already received counts, even if the connection is still closing), the TCP connection dropped without one,
    /// or still open.
    public func end(within timeout: Double) async -> ConnectionEnd {
        let frame = await waitFor(timeout) { $0.isEnd }
        switch frame?.kind {
        case .close(let code, let reason)?: return .closed(code: code, reason: reason)
        case .ended(let why)?: return .dropped(why)
        default: return .open(after: timeout)
        }
    }

    /// What the server sent from frame `from` on, for a failure's "got": never "nothing" when something came.
    /// `"nothing"` only when no frame came and the connection is open.
    public func received(from: Int = 0, limit: Int = 4) -> String {
        let frames = self.frames.dropFirst(max(0, from)).filter { $0.direction == .received }
        let messages = frames.filter { !$0.isEnd && $0.kind != .pong && $0.kind != .ping }
        var parts: [String] = []
        if !messages.isEmpty {
            let shown = messages.prefix(limit).map { frame -> String in
                guard let message = frame.message else { return frame.line(limit: 120) }
                if message.event == "pusher:error" { return SubscribeAnswer.describe(frame) }
                return message.event + (message.channel.map { " on \($0)" } ?? "")
            }
            parts.append(
                shown.joined(separator: ", ") + (messages.count > limit ? " and \(messages.count - limit) more" : ""))
        }
        if let end = frames.first(where: \.isEnd) {
            switch end.kind {
            case .close(let code, let reason):
                parts.append(
                    "a close frame \(code.map(String.init) ?? "without a code")\(reason.isEmpty ? "" : " \"\(reason)\"")"
                )
            case .ended: parts.append("the TCP connection dropped without a close frame")
            default: break
            }
        }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", then ")
    }
}
