/// One Pusher protocol message (a WebSocket text frame): `{"event":…, "channel":…, "data":…, "user_id":…}`.
///
/// On the wire `data` is usually a *string* holding JSON (server to client) but may be an object (client to
/// server, and some servers). ``data`` keeps what was on the wire; ``dataText`` gives the text a consumer
/// parses, whichever form arrived.
public struct PusherMessage: Sendable, Hashable {
    /// The event name, e.g. `pusher:subscribe` or an app's own `order-created`.
    public var event: String
    /// The channel, for channel events; `nil` for connection-level messages.
    public var channel: String?
    /// The `data` field: a JSON string (Pusher encodes event data as a string) or JSON.
    public var data: JSONValue?
    /// The sender of a client event on a presence channel (`user_id`).
    public var userID: String?

    /// A message with its fields.
    public init(event: String, channel: String? = nil, data: JSONValue? = nil, userID: String? = nil) {
        self.event = event
        self.channel = channel
        self.data = data
        self.userID = userID
    }

    /// Decodes one text frame.
    /// - Throws: ``PusherMessageError`` naming what is wrong (not JSON, not an object, a missing or mistyped
    ///   field).
    public init(decoding text: String) throws(PusherMessageError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            throw .invalidJSON(error.description)
        }
        guard case .object(let fields) = value else { throw .notAnObject }
        guard let eventField = fields["event"] else { throw .missingField("event") }
        guard case .string(let event) = eventField else { throw .wrongType(field: "event", expected: "string") }
        self.event = event
        switch fields["channel"] {
        case nil, .null?: self.channel = nil
        case .string(let c)?: self.channel = c
        default: throw .wrongType(field: "channel", expected: "string")
        }
        switch fields["user_id"] {
        case nil, .null?: self.userID = nil
        case .string(let u)?: self.userID = u
        case .number(let n)?: self.userID = JSONValue.number(n).jsonString
        default: throw .wrongType(field: "user_id", expected: "string")
        }
        self.data = fields["data"]
    }

    /// The data as text: the string itself when the wire held a string, else its compact JSON.
    public var dataText: String? {
        switch data {
        case nil: return nil
        case .string(let s)?: return s
        case let value?: return value.jsonString
        }
    }

    /// The data as JSON: a wire string that holds JSON is parsed; a string that does not stays a string.
    public var dataJSON: JSONValue? {
        switch data {
        case nil: return nil
        case .string(let s)?: return JSONValue.parsedOrString(s)
        case let value?: return value
        }
    }

    /// Compact JSON text of this message, ready to send.
    public var jsonString: String {
        var out = "{\"event\":"
        JSONValue.writeString(event, to: &out)
        if let channel {
            out += ",\"channel\":"
            JSONValue.writeString(channel, to: &out)
        }
        if let data {
            out += ",\"data\":"
            data.write(to: &out)
        }
        if let userID {
            out += ",\"user_id\":"
            JSONValue.writeString(userID, to: &out)
        }
        out += "}"
        return out
    }
}

/// What is wrong with a received frame.
public enum PusherMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidJSON(String)
    case notAnObject
    case missingField(String)
    case wrongType(field: String, expected: String)
    case binaryFrame(size: Int)
    case tooLarge(size: Int, limit: Int)

    public var description: String {
        switch self {
        case .invalidJSON(let why): return "frame is not JSON (\(why))"
        case .notAnObject: return "frame is JSON but not an object"
        case .missingField(let f): return "frame has no \"\(f)\" field"
        case .wrongType(let f, let expected): return "frame field \"\(f)\" is not a \(expected)"
        case .binaryFrame(let size): return "binary frame of \(size) bytes (Pusher frames are text)"
        case .tooLarge(let size, let limit): return "frame of \(size) bytes exceeds the \(limit)-byte limit"
        }
    }
}
