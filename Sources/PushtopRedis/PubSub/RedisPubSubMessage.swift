import NIOCore

/// A message published to a channel the subscriber listens to.
public struct RedisPubSubMessage: Sendable, Hashable {
    /// The channel it was published to.
    public var channel: String
    /// The pattern that matched, for a `PSUBSCRIBE`; `nil` for a plain `SUBSCRIBE`.
    public var pattern: String?
    /// The message's bytes, exactly as published (a slice of the read buffer: no copy).
    public var payload: ByteBuffer

    /// A message.
    public init(channel: String, pattern: String? = nil, payload: ByteBuffer) {
        self.channel = channel
        self.pattern = pattern
        self.payload = payload
    }

    /// The message in a RESP2 push (`["message", channel, payload]` or `["pmessage", pattern, channel,
    /// payload]`); `nil` for any other value (subscription confirmations, `PING` answers).
    init?(push value: RESPValue) {
        guard case .array(let elements?) = value, let first = elements.first, case .bulkString(let kind?) = first
        else { return nil }
        if elements.count == 3, kind.readableBytesView.elementsEqual("message".utf8),
            case .bulkString(let channel?) = elements[1], case .bulkString(let payload?) = elements[2]
        {
            self.init(channel: String(buffer: channel), payload: payload)
        } else if elements.count == 4, kind.readableBytesView.elementsEqual("pmessage".utf8),
            case .bulkString(let pattern?) = elements[1], case .bulkString(let channel?) = elements[2],
            case .bulkString(let payload?) = elements[3]
        {
            self.init(channel: String(buffer: channel), pattern: String(buffer: pattern), payload: payload)
        } else {
            return nil
        }
    }
}
