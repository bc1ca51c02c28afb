/// Why a ``ProbeSocket`` could not be opened.
public enum ProbeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No TCP (or TLS) connection: refused, timed out, no route, a bad certificate.
    case unreachable(String)
    /// The server answered the WebSocket upgrade with another HTTP status.
    case refused(status: Int, reason: String)
    /// The URL is not a `ws://` or `wss://` URL.
    case badURL(String)

    public var description: String {
        switch self {
        case .unreachable(let why): return "cannot connect: \(why)"
        case .refused(let status, let reason): return "the WebSocket upgrade was refused: HTTP \(status) \(reason)"
        case .badURL(let url): return "not a ws:// or wss:// URL: \(url)"
        }
    }
}
