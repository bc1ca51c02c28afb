/// A text prompt at the bottom of the screen.
public struct Prompt: Sendable, Hashable {
    public enum Purpose: Sendable, Hashable {
        /// `s`: a channel name to subscribe.
        case subscribe
        /// `t`, first step: a client event name for `channel`.
        case triggerEvent(channel: String)
        /// `t`, second step: the JSON data.
        case triggerData(channel: String, event: String)
        /// `/`: the log filter (applied while typing).
        case filter
        /// `/` in the wire inspector: the frame filter (applied while typing).
        case wireFilter
        /// `J` in a replay: the time to jump to.
        case replayJump
        /// `/` in the channel browser.
        case browserFilter
        /// `/` in the debug console (applied while typing).
        case consoleFilter
    }

    public var purpose: Purpose
    public var text: String
    /// Why the current text is refused (shown under the prompt), or `nil` when it is acceptable.
    public var error: String?

    public init(purpose: Purpose, text: String = "", error: String? = nil) {
        self.purpose = purpose
        self.text = text
        self.error = error
    }

    /// The label before the input.
    public var label: String {
        switch purpose {
        case .subscribe: return "Subscribe to channel:"
        case .triggerEvent(let channel): return "Client event on \(channel), name:"
        case .triggerData(_, let event): return "Data for \(event) (JSON):"
        case .filter: return "Filter:"
        case .wireFilter: return "Filter frames:"
        case .browserFilter: return "Filter channels:"
        case .consoleFilter: return "Filter console (channel, event, socket, user, data):"
        case .replayJump: return "Jump to (m:ss, seconds, or +/-seconds):"
        }
    }
}
