import PusherProtocol

/// The body of `POST /apps/{id}/events` or `/batch_events`, read and checked as Pusher does: the events to publish
/// and, per event, the `info` attributes asked for (``HTTPAPICore``).
struct EventsBody: Sendable {
    var requests: [PublishRequest]
    /// The `info` attributes of each request (empty: none asked).
    var info: [Set<String>]

    /// Whether any event asks for channel attributes (which need the hub's answer).
    var asksForInfo: Bool { info.contains { !$0.isEmpty } }

    /// `{"name":…,"data":…,"channels":[…]|"channel":…,"socket_id":…,"info":…}`.
    ///
    /// The plain body (string fields, `data` a string) is read from its bytes without a tree
    /// (``PublishBodyScanner``); anything else, including every body that is refused, goes to the parser
    /// (``parsedEvents(_:)``), which decides alike and names the error.
    static func events(_ body: [UInt8]) throws(APIFailure) -> EventsBody {
        guard let (request, info) = plainEvent(body) else { return try parsedEvents(body) }
        return EventsBody(requests: [request], info: [try info.map(attributes) ?? []])
    }

    /// ``events(_:)`` through the JSON parser.
    static func parsedEvents(_ body: [UInt8]) throws(APIFailure) -> EventsBody {
        let fields = try object(body)
        return EventsBody(requests: [try request(fields)], info: [try attributes(fields["info"])])
    }

    /// The event of a plain, valid body and its `info` text, or `nil` for the parser to judge.
    private static func plainEvent(_ body: [UInt8]) -> (PublishRequest, info: String?)? {
        let scanned = body.withUnsafeBytes { bytes in
            UTF8Validation.isValid(bytes) ? PublishBodyScanner.scan(bytes) : nil
        }
        guard let fields = scanned, let name = fields.name, fields.socketID.map(isSocketID) ?? true else { return nil }
        var channels = fields.channels ?? []
        if let single = fields.channel { channels.append(single) }
        let request = PublishRequest(
            channels: channels, name: name, data: fields.data ?? "", excludedSocketID: fields.socketID)
        return (request, fields.info)
    }

    /// `{"batch":[{"channel":…,"name":…,"data":…}, …]}`, at most `limits.maxEventsPerBatch` events.
    static func batch(_ body: [UInt8], limits: PusherLimits) throws(APIFailure) -> EventsBody {
        let fields = try object(body)
        guard let list = fields["batch"]?.arrayValue else { throw .badRequest("Request body needs a \"batch\" array") }
        guard list.count <= limits.maxEventsPerBatch else {
            throw .badRequest("Batch of \(list.count) events: the limit is \(limits.maxEventsPerBatch) per request")
        }
        var result = EventsBody(requests: [], info: [])
        for (index, element) in list.enumerated() {
            guard let event = element.objectValue else { throw .badRequest("batch[\(index)] is not an object") }
            let request = try request(event)
            guard request.channels.count == 1 else {
                throw .badRequest("batch[\(index)] must name exactly one \"channel\"")
            }
            result.requests.append(request)
            result.info.append(try attributes(event["info"]))
        }
        return result
    }

    static func object(_ body: [UInt8]) throws(APIFailure) -> [String: JSONValue] {
        // String(decoding:) would quietly turn invalid bytes into U+FFFD and publish altered data.
        guard let text = UTF8Validation.string(validating: body) else {
            throw .badRequest("Request body is not valid UTF-8")
        }
        guard let value = JSONValue.parseIfJSON(text), case .object(let fields) = value else {
            throw .badRequest("Request body must be a JSON object")
        }
        return fields
    }

    /// Reads one event of `/events` or of a batch.
    static func request(_ fields: [String: JSONValue]) throws(APIFailure) -> PublishRequest {
        var channels: [String] = []
        if let list = fields["channels"] {
            guard let array = list.arrayValue else { throw .badRequest("\"channels\" must be an array of strings") }
            for element in array {
                guard let name = element.stringValue else {
                    throw .badRequest("\"channels\" must be an array of strings")
                }
                channels.append(name)
            }
        }
        if let single = fields["channel"] {
            guard let name = single.stringValue else { throw .badRequest("\"channel\" must be a string") }
            channels.append(name)
        }
        guard let name = fields["name"]?.stringValue else { throw .badRequest("The event needs a \"name\" string") }
        let data: String
        switch fields["data"] {
        case nil, .null?: data = ""
        case .string(let s)?: data = s
        case let other?: data = other.jsonString
        }
        var socketID: String?
        if let given = fields["socket_id"] {
            guard let s = given.stringValue, isSocketID(s) else {
                throw .badRequest("Invalid socket_id: expected digits.digits, e.g. \"123.456\"")
            }
            socketID = s
        }
        return PublishRequest(channels: channels, name: name, data: data, excludedSocketID: socketID)
    }

    static func isSocketID(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// The `info` attributes asked for (`user_count`, `subscription_count`).
    static func attributes(_ info: JSONValue?) throws(APIFailure) -> Set<String> {
        guard let info else { return [] }
        guard let text = info.stringValue else { throw .badRequest("\"info\" must be a comma-separated string") }
        return try attributes(text)
    }

    static func attributes(_ text: String) throws(APIFailure) -> Set<String> {
        let names = Set(
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let unknown = names.subtracting(["user_count", "subscription_count", "cache"])
        if !unknown.isEmpty {
            throw .badRequest("Unknown info attribute(s): \(unknown.sorted().joined(separator: ", "))")
        }
        return names
    }
}
