import PusherProtocol

/// One event to publish on one or more channels, as `POST /apps/{id}/events` describes it.
public struct PublishRequest: Sendable, Hashable {
    /// The channels to publish on (at most ``PusherLimits/maxChannelsPerTrigger``).
    public var channels: [String]
    /// The event name (any name; `pusher:` and `pusher_internal:` are the protocol's own).
    public var name: String
    /// The data as text, delivered verbatim (usually a JSON document).
    public var data: String
    /// A subscriber not to send it to: the `socket_id` of the connection that caused the event.
    public var excludedSocketID: String?

    /// An event on `channels`; `excludedSocketID` is a connection not to send it to.
    public init(channels: [String], name: String, data: String, excludedSocketID: String? = nil) {
        self.channels = channels
        self.name = name
        self.data = data
        self.excludedSocketID = excludedSocketID
    }
}

/// Why an event was not published; the HTTP API turns each into Pusher's status and message.
public enum PublishError: Error, Sendable, Equatable, CustomStringConvertible {
    case noChannels
    case tooManyChannels(count: Int, limit: Int)
    case invalidChannel(name: String, reason: String)
    case missingEventName
    case eventNameTooLong(length: Int, limit: Int)
    case reservedEventName(String)
    case dataTooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .noChannels: return "no channel given: set \"channels\" (an array) or \"channel\""
        case .tooManyChannels(let count, let limit):
            return "\(count) channels given; an event may go to at most \(limit)"
        case .invalidChannel(let name, let reason): return "invalid channel '\(ErrorText.excerpt(name))': \(reason)"
        case .missingEventName: return "the event has no \"name\""
        case .eventNameTooLong(let length, let limit):
            return "event name is \(length) characters long; the limit is \(limit)"
        case .reservedEventName(let name): return "event name '\(name)' is reserved for the protocol"
        case .dataTooLarge(let bytes, let limit): return "event data is \(bytes) bytes; the limit is \(limit)"
        }
    }

    /// The HTTP status Pusher answers with.
    public var httpStatus: Int {
        if case .dataTooLarge = self { return 413 }
        return 400
    }
}
