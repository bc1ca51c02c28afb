/// What went wrong talking to Redis, with enough context to act on.
public enum RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A Redis URL that cannot be used (the text shown has its password replaced by `***`).
    case invalidURL(String, reason: String)
    /// The connection is not up (never connected yet, or lost and reconnecting): the command was not sent.
    case notConnected(String)
    /// The connection was lost after the command was sent, before its reply arrived: it may or may not have run.
    case connectionLost(String)
    /// The client or subscriber was closed.
    case closed
    /// Redis answered with an error reply (`-ERR ...`, `-WRONGTYPE ...`) to `command`.
    case server(command: String, message: String)
    /// Redis answered `command` with a reply of a shape the helper did not expect.
    case unexpectedReply(command: String, reply: String)
    /// No reply to `command` within the command timeout (the connection is then closed and opened again).
    case timeout(command: String, seconds: Double)
    /// The server's bytes are not valid RESP2, or break the decoder's limits.
    case protocolViolation(RESPDecodingError)
    /// Signing in (`AUTH`) or selecting the database (`SELECT`) failed.
    case handshake(String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid Redis URL \"\(url)\": \(reason)"
        case .notConnected(let why): "Redis is not connected (\(why))"
        case .connectionLost(let why): "the Redis connection was lost before the reply (\(why))"
        case .closed: "the Redis client is closed"
        case .server(let command, let message): "Redis refused \(command): \(message)"
        case .unexpectedReply(let command, let reply): "unexpected Redis reply to \(command): \(reply.prefix(200))"
        case .timeout(let command, let seconds): "no Redis reply to \(command) within \(seconds) s"
        case .protocolViolation(let error): "\(error)"
        case .handshake(let why): "Redis sign-in failed: \(why)"
        }
    }
}
