/// Why an ``HTTPExchange`` got no complete answer. A status other than 2xx is an answer, not an error.
enum HTTPExchangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an `http://` or `https://` URL with a host.
    case invalidURL(String)
    /// No complete answer within the time allowed (connecting included).
    case timeout(seconds: Double)
    /// The connection failed or ended early: refused, reset, TLS refused, closed before the end of the answer.
    case unreachable(String)
    /// The answer's body is longer than the limit (in bytes).
    case bodyTooLarge(limit: Int)

    var description: String {
        switch self {
        case .invalidURL(let url): return "not an http:// or https:// URL: \(url)"
        case .timeout(let seconds): return "no answer within \(seconds) s"
        case .unreachable(let why): return why
        case .bodyTooLarge(let limit): return "the answer's body is longer than \(limit) bytes"
        }
    }
}
