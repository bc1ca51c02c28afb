import PusherProtocol

/// The console's type toggles (Pusher's checkboxes), one number key each: `1` connections … `8` webhooks. A `gap`
/// row belongs to no group and is always shown (it says rows are missing).
public enum ConsoleTypeGroup: Int, Sendable, Hashable, CaseIterable, Comparable {
    case connections = 1
    case subscriptions
    case occupancy
    case apiMessages
    case clientEvents
    case presence
    case errors
    case webhooks

    /// The toggle bar's label.
    public var label: String {
        switch self {
        case .connections: return "connections"
        case .subscriptions: return "subscriptions"
        case .occupancy: return "occupancy"
        case .apiMessages: return "api"
        case .clientEvents: return "client events"
        case .presence: return "presence"
        case .errors: return "errors"
        case .webhooks: return "webhooks"
        }
    }

    /// The types, short, for the help.
    var typesText: String {
        switch self {
        case .occupancy: return "occupied, vacated (and counts)"
        case .webhooks: return "webhook_* rows"
        case .errors: return "errors, faults, verdicts"
        default: return types.map(\.rawValue).joined(separator: ", ")
        }
    }

    /// The row types the toggle shows or hides.
    public var types: [ConsoleRowType] {
        ConsoleRowType.allCases.filter { ConsoleTypeGroup.of($0) == self }
    }

    /// The group of a row type; `nil` for `gap`.
    public static func of(_ type: ConsoleRowType) -> ConsoleTypeGroup? {
        switch type {
        case .connection, .disconnection: return .connections
        case .subscribed, .unsubscribed: return .subscriptions
        case .occupied, .vacated, .subscriptionCount: return .occupancy
        case .apiMessage: return .apiMessages
        case .clientEvent: return .clientEvents
        case .presenceEvent: return .presence
        case .error, .apiError, .clientError, .fault, .recovered, .verdict: return .errors
        case .webhookSent, .webhookFailed, .webhookRejected, .webhookProblem: return .webhooks
        case .gap: return nil
        }
    }

    public static func < (a: ConsoleTypeGroup, b: ConsoleTypeGroup) -> Bool { a.rawValue < b.rawValue }
}
