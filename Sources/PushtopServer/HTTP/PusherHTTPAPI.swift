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
            await respond(refused: Self.reporter(apps, request, context)) { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                let body = try await api.checked(request, context)
                return try await api.triggerEvents(body: body, caller: ConsolePeer.address(of: request))
            }
        }
        router.post("/apps/:appID/batch_events") { request, context in
            await respond(refused: Self.reporter(apps, request, context)) { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                let body = try await api.checked(request, context)
                return try await api.triggerBatch(body: body, caller: ConsolePeer.address(of: request))
            }
        }
        router.get("/apps/:appID/channels") { request, context in
            await respond(refused: Self.reporter(apps, request, context)) { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                _ = try await api.checked(request, context)
                return try await api.listChannels(parameters: Self.query(request))
            }
        }
        router.get("/apps/:appID/channels/:channel") { request, context in
            await respond(refused: Self.reporter(apps, request, context)) { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                _ = try await api.checked(request, context)
                return try await api.channelInfo(
                    context.parameters.get("channel") ?? "", parameters: Self.query(request))
            }
        }
        registerUserRoutes(on: router, apps: apps)
        router.get("/apps/:appID/channels/:channel/users") { request, context in
            await respond(refused: Self.reporter(apps, request, context)) { () async throws(APIFailure) -> Response in
                let api = try Self.api(apps, context)
                _ = try await api.checked(request, context)
                return try await api.users(context.parameters.get("channel") ?? "")
            }
        }
    }

    /// Reports a refused request as an `api_error` row in the debug feed of the app its path names.
    static func reporter(_ apps: AppDirectory, _ request: Request, _ context: BasicRequestContext)
        -> (APIFailure) -> Void
    {
        { failure in
            guard let node = apps.node(forID: context.parameters.get("appID") ?? "") else { return }
            node.hub.console.apiError(
                failure, method: request.method.rawValue, path: request.uri.path,
                caller: ConsolePeer.address(of: request))
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
            throw APIFailure(
                status: 413, message: "Request body exceeds \(Self.maxBodyBytes) bytes", rule: "max_body_bytes")
        }
        let body = Array(buffer.readableBytesView)
        try verifier.verify(
            method: request.method.rawValue, path: request.uri.path, parameters: Self.query(request), body: body)
        return body
    }

    // MARK: Publishing

    private func info(_ summary: ChannelSummary, _ wanted: Set<String>) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        if wanted.contains("subscription_count") {
            fields["subscription_count"] = .number(Double(summary.subscriptionCount))
        }
        if wanted.contains("user_count"), let users = summary.userCount {
            fields["user_count"] = .number(Double(users))
        }
        return .object(fields)
    }

    /// Checks the events and queues them for the hub behind everything the sockets and the fast path queued before,
    /// so that events published one request after another (by either path) arrive in that order.
    private func publish(_ events: EventsBody, batch: Bool, caller: String?) throws(APIFailure) {
        do {
            for request in events.requests { try limits.check(request) }
        } catch {
            throw APIFailure(status: error.httpStatus, message: error.description, rule: "publish_limits")
        }
        hub.console.apiMessages(events.requests, batch: batch, caller: caller)
        hub.inbox.yield(.published(events.requests))
    }

    private func triggerEvents(body: [UInt8], caller: String?) async throws(APIFailure) -> Response {
        let events = try EventsBody.events(body)
        try publish(events, batch: false, caller: caller)
        guard events.asksForInfo else { return .json("{}") }
        var channels: [String: JSONValue] = [:]
        for name in events.requests[0].channels {
            channels[name] = info(await hub.clusterChannelSummary(name), events.info[0])
        }
        return .json(JSONValue.object(["channels": .object(channels)]).jsonString)
    }

    private func triggerBatch(body: [UInt8], caller: String?) async throws(APIFailure) -> Response {
        let events = try EventsBody.batch(body, limits: limits)
        try publish(events, batch: true, caller: caller)
        guard events.asksForInfo else { return .json("{}") }
        var results: [JSONValue] = []
        for (request, attributes) in zip(events.requests, events.info) {
            results.append(info(await hub.clusterChannelSummary(request.channels[0]), attributes))
        }
        return .json(JSONValue.object(["batch": .array(results)]).jsonString)
    }

    // MARK: Queries

    private func listChannels(parameters: [String: String]) async throws(APIFailure) -> Response {
        let prefix = parameters["filter_by_prefix"] ?? ""
        let wanted = try EventsBody.attributes(parameters["info"] ?? "")
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
        let wanted = try EventsBody.attributes(parameters["info"] ?? "")
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
