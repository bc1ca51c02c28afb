import PusherProtocol

/// What a piece of text is, for the theme to colour: themes name roles, never views.
///
/// The raw value is the key used in theme files (`[roles]` table), e.g. `"state.connected"`.
public enum Role: String, Sendable, Hashable, CaseIterable {
    case text = "text"
    case dim = "dim"
    case border = "border"
    case borderFocus = "border.focus"
    case title = "title"
    case titleFocus = "title.focus"
    case badge = "badge"
    case header = "header"
    case selection = "selection"
    case label = "label"
    case value = "value"
    case sparkline = "sparkline"
    case stateInitialized = "state.initialized"
    case stateConnecting = "state.connecting"
    case stateConnected = "state.connected"
    case stateUnavailable = "state.unavailable"
    case stateFailed = "state.failed"
    case stateDisconnected = "state.disconnected"
    case channelKind = "channel.kind"
    case channelError = "channel.error"
    case eventTime = "event.time"
    case eventChannel = "event.channel"
    case eventName = "event.name"
    case eventData = "event.data"
    case eventError = "event.error"
    case eventState = "event.state"
    case eventInfo = "event.info"
    case memberMe = "member.me"
    case memberJoin = "member.join"
    case memberLeave = "member.leave"
    case hintKey = "hint.key"
    case hintText = "hint.text"
    case prompt = "prompt"
    case promptError = "prompt.error"
    case status = "status"
    case statusError = "status.error"
    case overlay = "overlay"
    // Member colours: a stable pick per user id among these slots (`member.1` ... `member.8`).
    case member1 = "member.1"
    case member2 = "member.2"
    case member3 = "member.3"
    case member4 = "member.4"
    case member5 = "member.5"
    case member6 = "member.6"
    case member7 = "member.7"
    case member8 = "member.8"
    // The debug console's rows, by type (``Role/console(_:)``).
    case consoleConnection = "console.connection"
    case consoleDisconnection = "console.disconnection"
    case consoleSubscription = "console.subscription"
    case consoleOccupancy = "console.occupancy"
    case consoleAPI = "console.api"
    case consoleClient = "console.client"
    case consolePresence = "console.presence"
    case consoleError = "console.error"
    case consoleWebhook = "console.webhook"
    case consoleGap = "console.gap"

    /// The member colour slots, in order.
    public static let memberSlots: [Role] = [
        .member1, .member2, .member3, .member4, .member5, .member6, .member7,
        .member8,
    ]

    /// The role for a connection state.
    public static func state(_ s: ConnectionState) -> Role {
        switch s {
        case .initialized: return .stateInitialized
        case .connecting: return .stateConnecting
        case .connected: return .stateConnected
        case .unavailable: return .stateUnavailable
        case .failed: return .stateFailed
        case .disconnected: return .stateDisconnected
        }
    }

    /// The role of a debug-console row of this type.
    public static func console(_ type: ConsoleRowType) -> Role {
        switch type {
        case .connection: return .consoleConnection
        case .disconnection: return .consoleDisconnection
        case .subscribed, .unsubscribed: return .consoleSubscription
        case .occupied, .vacated, .subscriptionCount: return .consoleOccupancy
        case .apiMessage: return .consoleAPI
        case .clientEvent: return .consoleClient
        case .presenceEvent: return .consolePresence
        case .error, .apiError, .clientError, .webhookRejected, .fault: return .consoleError
        case .recovered, .verdict: return .consoleConnection
        case .webhookSent, .webhookFailed, .webhookProblem: return .consoleWebhook
        case .gap: return .consoleGap
        }
    }

    /// A stable colour slot for a user id (FNV-1a, so it is the same in every run).
    public static func member(_ userID: String) -> Role {
        var hash: UInt32 = 2_166_136_261
        for b in userID.utf8 {
            hash ^= UInt32(b)
            hash = hash &* 16_777_619
        }
        return memberSlots[Int(hash % UInt32(memberSlots.count))]
    }
}
