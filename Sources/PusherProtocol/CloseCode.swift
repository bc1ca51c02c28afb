/// What a client does when the server closes the connection with a code (Pusher's close-code ranges).
public enum CloseAction: String, Sendable, Hashable {
    /// 4000: the app accepts TLS only: try once more over TLS.
    case retryWithTLS = "retry over TLS"
    /// 4001-4099 and 4300+: refused; do not reconnect.
    case refuse = "no reconnect"
    /// 4100-4199: reconnect after a back-off.
    case backOff = "reconnect with back-off"
    /// 4200-4299: reconnect at once.
    case reconnectNow = "reconnect now"
    /// Network drops and any other code: follow the reconnection policy.
    case followPolicy = "reconnect per policy"
    /// The reconnection policy gave up (retries exhausted, or reconnection disabled).
    case giveUp = "gave up"
}

/// Pusher WebSocket close codes: their ranges and meanings.
public enum CloseCode {
    /// The least wait, in seconds, before reconnecting after a close in 4100-4199 (the protocol: "1 s or more").
    public static let minimumBackOff: Double = 1

    /// The action a close code calls for. `nil` means the transport failed with no close frame.
    public static func action(for code: Int?) -> CloseAction {
        guard let code else { return .followPolicy }
        switch code {
        case 4000: return .retryWithTLS
        case 4001...4099: return .refuse
        case 4100...4199: return .backOff
        case 4200...4299: return .reconnectNow
        case 4300...4999: return .refuse
        default: return .followPolicy
        }
    }

    /// A short meaning, for people.
    public static func meaning(of code: Int?) -> String {
        guard let code else { return "connection lost" }
        switch code {
        case 1000: return "normal closure"
        case 1001: return "going away"
        case 1006: return "abnormal closure"
        case 4000: return "application only accepts TLS"
        case 4001: return "application does not exist"
        case 4003: return "application disabled"
        case 4004: return "over connection quota"
        case 4005: return "path not found"
        case 4006: return "invalid version string format"
        case 4007: return "unsupported protocol version"
        case 4008: return "no protocol version supplied"
        case 4009: return "connection is unauthorized"
        case 4001...4099: return "refused by server"
        case 4100: return "over capacity"
        case 4100...4199: return "server asks to back off"
        case 4200: return "server asks to reconnect"
        case 4201: return "pong reply not received"
        case 4202: return "closed after inactivity"
        case 4200...4299: return "server asks to reconnect"
        case 4301: return "client event rejected: rate limit"
        case 4300...4999: return "refused by server"
        default: return "closed with code \(code)"
        }
    }
}
