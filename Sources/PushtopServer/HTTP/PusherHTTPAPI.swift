import Foundation
import Hummingbird
import PusherProtocol

/// Pusher's HTTP API on the embedded server: `/apps/{app_id}/events`, `/batch_events`, `/channels`,
/// `/channels/{name}`, `/channels/{name}/users` and `/users/{id}/terminate_connections`, each signed as Pusher
/// requires.
struct PusherHTTPAPI: Sendable {
    let hub: PusherHub
    let app: AppCredentials
    let limits: PusherLimits
    /// Bytes of a request body the API reads.
    static let maxBodyBytes = 1 << 20

    var verifier: APIRequestVerifier { APIRequestVerifier(key: app.key, secret: app.secret) }

    /// Registers the API's routes; each request goes to the app its path names (an unknown id: 404; a disabled
    /// app: 403; over the app's `api_requests_per_second`: 429).
    static func register(on router: Router<BasicRequestContext>, apps: AppDirectory) {
        router.post("/apps/:appID/events") { request, context in
            await respond { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                let body = try await api.checked(request, context)
                return try await api.triggerEvents(body: body)
            }
        }
        router.post("/apps/:appID/batch_events") { request, context in
            await respond { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                let body = try await api.checked(request, context)
                return try await api.triggerBatch(body: body)
            }
        }
        router.get("/apps/:appID/channels") { request, context in
            await respond { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                _ = try await api.checked(request, context)
                return try await api.listChannels(parameters: Self.query(request))
            }
        }
        router.get("/apps/:appID/channels/:channel") { request, context in
            await respond { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                _ = try await api.checked(request, context)
                return try await api.channelInfo(
                    context.parameters.get("channel") ?? "", parameters: Self.query(request))
            }
        }
        registerUserRoutes(on: router, apps: apps)
        router.get("/apps/:appID/channels/:channel/users") { request, context in
            await respond { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                _ = try await api.checked(request, context)
                return try await api.users(context.parameters.get("channel") ?? "")
            }
        }
    }

    /// The API of the app the path names, once the app admits the request.
    static func api(_ apps: AppDirectory, _ context: BasicRequestContext) throws(APIFailure) -> PusherHTTPAPI {
        let id = context.parameters.get("appID") ?? ""
        guard let node = apps.node(forID: id) else {
            throw APIFailure(status: 404, message: "Unknown app id '\(ErrorText.excerpt(id))'")
        }
        return try api(of: node)
    }

    /// The API of `node`, once the app admits the request (403 disabled, 429 over its rate).
    static func api(of node: AppNode) throws(APIFailure) -> PusherHTTPAPI {
        try node.admitAPIRequest()
        return PusherHTTPAPI(hub: node.hub, app: node.credentials, limits: node.settings.limits)
    }

    static func query(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { result[String(key)] = String(value) }
        return result
    }

    /// Checks the app id and the signature; returns the body.
    func checked(_ request: Request, _ context: BasicRequestContext, pathHasAppID: Bool = true)
        async throws(APIFailure) -> [UInt8]
    {
        guard !pathHasAppID || context.parameters.get("appID") == app.id else {
            throw APIFailure(status: 404, message: "Unknown app id '\(context.parameters.get("appID") ?? "")'")
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: Self.maxBodyBytes)
        } catch {
            throw APIFailure(status: 413, message: "Request body exceeds \(Self.maxBodyBytes) bytes")
        }
        let body = Array(buffer.readableBytesView)
        try verifier.verify(
            method: request.method.rawValue, path: request.uri.path, parameters: Self.query(request), body: body)
        return body
    }

    // MARK: Publishing

    private func parseObject(_ body: [UInt8]) throws(APIFailure) -> [String: JSONValue] {
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
    private func publishRequest(_ fields: [String: JSONValue]) throws(APIFailure) -> PublishRequest {
        var channels: [String] = []
        if let list = fields["channels"] {
            guard let array = list.arrayValue else { throw .badRequest("\"channels\" must be an array of strings") }
            for element in array {
                guard let name = element.stringValue else { throw .badRequest("\"channels\" must be an array of strings") }
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
            guard let s = given.stringValue, Self.isSocketID(s) else {
                throw .badRequest("Invalid socket_id: expected digits.digits, e.g. \"123.456\"")
            }
            socketID = s
        }
        return PublishRequest(channels: channels, name: name, data: data, excludedSocketID: socketID)
    }

    static func isSocketID(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// The `info` attributes asked for (`user_count`, `subscription_count`).
    private func attributes(_ info: JSONValue?) throws(APIFailure) -> Set<String> {
        guard let info else { return [] }
        guard let text = info.stringValue else { throw .badRequest("\"info\" must be a comma-separated string") }
        return try Self.attributes(text)
    }

    static func attributes(_ text: String) throws(APIFailure) -> Set<String> {
        let names = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let unknown = names.subtracting(["user_count", "subscription_count", "cache"])
        if !unknown.isEmpty {
            throw .badRequest("Unknown info attribute(s): \(unknown.sorted().joined(separator: ", "))")
        }
        return names
    }

    private func info(_ summary: ChannelSummary, _ wanted: Set<String>) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        if wanted.contains("subscription_count") { fields["subscription_count"] = .number(Double(summary.subscriptionCount)) }
        if wanted.contains("user_count"), let users = summary.userCount { fields["user_count"] = .number(Double(users)) }
        return .object(fields)
    }

    private func triggerEvents(body: [UInt8]) async throws(APIFailure) -> Response {
        let fields = try parseObject(body)
        let request = try publishRequest(fields)
        let wanted = try attributes(fields["info"])
        do {
            try await hub.publish(request)
        } catch {
            throw APIFailure(status: error.httpStatus, message: error.description)
        }
        guard !wanted.isEmpty else { return .json("{}") }
        var channels: [String: JSONValue] = [:]
        for name in request.channels {
            channels[name] = info(await hub.clusterChannelSummary(name), wanted)
        }
        return .json(JSONValue.object(["channels": .object(channels)]).jsonString)
    }

    private func triggerBatch(body: [UInt8]) async throws(APIFailure) -> Response {
        let fields = try parseObject(body)
        guard let list = fields["batch"]?.arrayValue else { throw .badRequest("Request body needs a \"batch\" array") }
        guard list.count <= limits.maxEventsPerBatch else {
            throw .badRequest("Batch of \(list.count) events: the limit is \(limits.maxEventsPerBatch) per request")
        }
        var requests: [PublishRequest] = []
        var wanted: [Set<String>] = []
        for (index, element) in list.enumerated() {
            guard let event = element.objectValue else { throw .badRequest("batch[\(index)] is not an object") }
            let request = try publishRequest(event)
            guard request.channels.count == 1 else {
                throw .badRequest("batch[\(index)] must name exactly one \"channel\"")
            }
            requests.append(request)
            wanted.append(try attributes(event["info"]))
        }
        do {
            try await hub.publish(batch: requests)
        } catch {
            throw APIFailure(status: error.httpStatus, message: error.description)
        }
        guard wanted.contains(where: { !$0.isEmpty }) else { return .json("{}") }
        var results: [JSONValue] = []
        for (request, attributes) in zip(requests, wanted) {
            results.append(info(await hub.clusterChannelSummary(request.channels[0]), attributes))
        }
        return .json(JSONValue.object(["batch": .array(results)]).jsonString)
    }

    // MARK: Queries

    private func listChannels(parameters: [String: String]) async throws(APIFailure) -> Response {
        let prefix = parameters["filter_by_prefix"] ?? ""
        let wanted = try Self.attributes(parameters["info"] ?? "")
        if wanted.contains("user_count") && !prefix.hasPrefix("presence-") {
            throw .badRequest("info=user_count requires filter_by_prefix=presence-")
        }
        var channels: [String: JSONValue] = [:]
        for summary in await hub.clusterChannelSummaries(prefix: prefix) {
            channels[summary.name] = info(summary, wanted)
        }
        return .json(JSONValue.object(["channels": .object(channels)]).jsonString)
    }

    private func channelInfo(_ name: String, parameters: [String: String]) async throws(APIFailure) -> Response {
        try validChannel(name)
        let wanted = try Self.attributes(parameters["info"] ?? "")
        let summary = await hub.clusterChannelSummary(name)
        if wanted.contains("user_count") && summary.userCount == nil {
            throw .badRequest("info=user_count is only available for presence channels")
        }
        var fields = info(summary, wanted).objectValue ?? [:]
        fields["occupied"] = .bool(summary.occupied)
        return .json(JSONValue.object(fields).jsonString)
    }

    private func users(_ name: String) async throws(APIFailure) -> Response {
        try validChannel(name)
        guard ChannelKind(channelName: name) == .presence else {
            throw .badRequest("Users can only be retrieved for presence channels; '\(name)' is not one")
        }
        let ids = await hub.clusterUsers(in: name)
        return .json(JSONValue.object(["users": .array(ids.map { ["id": .string($0)] })]).jsonString)
    }

    private func validChannel(_ name: String) throws(APIFailure) {
        do {
            try ChannelName.validate(name)
        } catch {
            throw .badRequest("Invalid channel name '\(name)': \(error.description)")
        }
    }
}
