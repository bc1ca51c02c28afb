import NIOWebSocket

extension WebSocketErrorCode {
    /// The close code as a number (NIO keeps it internal).
    public var number: Int {
        switch self {
        case .normalClosure: return 1000
        case .goingAway: return 1001
        case .protocolError: return 1002
        case .unacceptableData: return 1003
        case .dataInconsistentWithMessage: return 1007
        case .policyViolation: return 1008
        case .messageTooLarge: return 1009
        case .missingExtension: return 1010
        case .unexpectedServerError: return 1011
        case .unknown(let code): return Int(code)
        }
    }
}
