import Foundation
import PusherProtocol

/// One WebSocket frame a ``ProbeSocket`` saw, in either direction: the evidence a failed case shows.
public struct ProbeFrame: Sendable, Hashable {
    /// Which way the frame went.
    public enum Direction: String, Sendable, Hashable {
        case sent = ">>"
        case received = "<<"
    }

    /// What kind of frame it was.
    public enum Kind: Sendable, Hashable {
        case text(String)
        case binary(Int)
        case ping
        case pong
        /// A close frame with its code (`nil` when it carried none) and reason.
        case close(code: Int?, reason: String)
        /// Not a frame: the TCP connection ended (or failed) without a close frame from the peer.
        case ended(String)
    }

    public var direction: Direction
    public var kind: Kind
    /// Seconds since the socket was opened.
    public var at: Double

    /// The frame as a Pusher message, when it is a text frame that decodes as one.
    public var message: PusherMessage? {
        guard case .text(let text) = kind else { return nil }
        return try? PusherMessage(decoding: text)
    }

    /// The text of a text frame.
    public var text: String? {
        if case .text(let text) = kind { return text }
        return nil
    }

    /// A message Pusher bills: a text frame the server delivered, except the keep-alive `pusher:ping` and
    /// `pusher:pong` ("Ping/pong messages used to detect dropped connections [...] are not counted"). A slow run
    /// exchanges more of them (the server pings every idle connection each activity timeout), so counting them made a
    /// case's count depend on the machine's speed.
    public var isBillable: Bool {
        guard direction == .received, text != nil else { return false }
        guard let event = message?.event else { return true }
        return event != PusherEventName.ping && event != PusherEventName.pong
    }

    /// One line for a report: direction, time and the frame, cut at `limit` characters.
    public func line(limit: Int = 300) -> String {
        let body: String
        switch kind {
        case .text(let text):
            body = text.count > limit ? String(text.prefix(limit)) + "…(\(text.utf8.count) bytes)" : text
        case .binary(let count): body = "[binary frame, \(count) bytes]"
        case .ping: body = "[ping]"
        case .pong: body = "[pong]"
        case .close(let code, let reason):
            body = "[close \(code.map(String.init) ?? "(no code)")\(reason.isEmpty ? "" : " \(reason)")]"
        case .ended(let why): body = "[connection ended: \(why)]"
        }
        return "\(direction.rawValue) \(String(format: "%6.3f", at))s \(body)"
    }
}
