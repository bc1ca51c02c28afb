import PusherProtocol

/// What a key does in the auth inspector.
public enum AuthAction: Sendable, Hashable {
    case up, down, pageUp, pageDown, top, bottom
    /// The previous / next channel with a trace.
    case previous, next
    case close
}

/// The auth inspector's slice of the state: the newest authorization trace of each channel, the socket ids
/// seen (to name a signature made for an earlier socket), and which trace is open.
public struct AuthInspectorState: Sendable {
    public enum Outcome: Sendable, Hashable { case none, leave }

    /// The newest trace per channel.
    public internal(set) var traces: [String: AuthorizationTrace] = [:]
    /// Socket ids this dashboard has seen, oldest first (at most 20).
    public internal(set) var socketIDs: [String] = []
    /// The channel whose trace is shown.
    public internal(set) var selected: String?
    public internal(set) var scroll = 0

    public init() {}

    mutating func record(_ trace: AuthorizationTrace) {
        traces[trace.channel] = trace
    }

    mutating func noteSocketID(_ id: String) {
        guard socketIDs.last != id else { return }
        socketIDs.append(id)
        if socketIDs.count > 20 { socketIDs.removeFirst() }
    }

    /// Performs a key; `channels` is the channel list's order (for previous / next).
    mutating func perform(_ action: AuthAction, channels: [String], page: Int = 10) -> Outcome {
        // The view clamps the scroll to its last line: the end is far down.
        if let moved = Scrolling.apply(action, to: scroll, page: page, last: Int.max / 2) {
            scroll = moved
            return .none
        }
        switch action {
        case .up, .down, .pageUp, .pageDown, .top, .bottom: break  // scrolled above
        case .previous, .next:
            let traced = channels.filter { traces[$0] != nil } + traces.keys.sorted().filter { !channels.contains($0) }
            guard !traced.isEmpty else { return .none }
            let i = selected.flatMap { traced.firstIndex(of: $0) } ?? 0
            let j = action == .next ? (i + 1) % traced.count : (i + traced.count - 1) % traced.count
            selected = traced[j]
            scroll = 0
        case .close:
            return .leave
        }
        return .none
    }
}
