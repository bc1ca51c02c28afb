/// Why an HTTP API call failed.
public enum PusherAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a non-2xx status; `message` is its body (Pusher's explanation).
    case status(code: Int, message: String)
    /// The request never got an answer (connection refused, timeout, TLS failure).
    case transport(String)
    /// The caller's input was refused before sending (e.g. data that is not text).
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .status(let code, let message):
            let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
            return "HTTP \(code): \(trimmed.isEmpty ? "(empty body)" : trimmed)"
        case .transport(let why): return "request failed: \(why)"
        case .invalidRequest(let why): return "invalid request: \(why)"
        }
    }
}
