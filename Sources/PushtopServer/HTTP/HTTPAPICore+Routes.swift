import NIOCore
import PusherProtocol

/// What each endpoint does once its request is admitted.
extension HTTPAPICore {
    func serve(_ request: Request, _ app: App, _ query: URLQuery, _ body: [UInt8], path: String)
        throws(APIFailure) -> Decision
    {
        switch request.route {
        case .events, .batchEvents:
            return try publish(request, app, body)
        case .channels:
            let prefix = query["filter_by_prefix"] ?? ""
            let wanted = try EventsBody.attributes(query["info"] ?? "")
            if wanted.contains("user_count") && !prefix.hasPrefix("presence-") {
                throw .badRequest("info=user_count requires filter_by_prefix=presence-")
            }
            return Self.onHub(app.hub) { hub in
                var channels: [String: JSONValue] = [:]
                for summary in await hub.clusterChannelSummaries(prefix: prefix) {
                    channels[summary.name] = Self.info(summary, wanted)
                }
                return .json(.object(["channels": .object(channels)]))
            }
        case .channel(let name):
            try Self.validChannel(name)
            let wanted = try EventsBody.attributes(query["info"] ?? "")
            let refused = refusalReporter(app, request, path: path)
            return Self.onHub(app.hub) { hub in
                let summary = await hub.clusterChannelSummary(name)
                if wanted.contains("user_count") && summary.userCount == nil {
                    return refused(.badRequest("info=user_count is only available for presence channels"))
                }
                var fields = Self.info(summary, wanted).objectValue ?? [:]
                fields["occupied"] = .bool(summary.occupied)
                return .json(.object(fields))
            }
        case .channelUsers(let name):
            try Self.validChannel(name)
            guard ChannelKind(channelName: name) == .presence else {
                throw .badRequest(
                    "Users can only be retrieved for presence channels; '\(ErrorText.excerpt(name))' is not one")
            }
            return Self.onHub(app.hub) { hub in
                let ids = await hub.clusterUsers(in: name)
                return .json(.object(["users": .array(ids.map { ["id": .string($0)] })]))
            }
        case .terminateConnections(let userID):
            if let problem = UserIDs.problem(userID) {
                throw .badRequest("Invalid user id '\(ErrorText.excerpt(userID))': \(problem)")
            }
            return Self.onHub(app.hub) { hub in
                _ = await hub.terminateConnections(ofUser: userID)
                return .accepted
            }
        }
    }

    /// Work on the hub once it has handled everything queued before the request (``HubInbox/drained()``): a query or
    /// a termination sent after a publish was answered 200 finds that publish delivered.
    private static func onHub(_ hub: PusherHub, _ work: @escaping @Sendable (PusherHub) async -> APIResponse)
        -> Decision
    {
        .later {
            await hub.inbox.drained()
            return await work(hub)
        }
    }

    /// `POST /events` and `/batch_events`: checked, shown in the debug feed, queued for the hub from the
    /// connection's event loop (so one connection's publishes reach the hub in its request order); `info` is
    /// answered once the hub counted.
    private func publish(_ request: Request, _ app: App, _ body: [UInt8]) throws(APIFailure) -> Decision {
        let batch = request.route == .batchEvents
        let events = batch ? try EventsBody.batch(body, limits: app.limits) : try EventsBody.events(body)
        do {
            for event in events.requests { try app.limits.check(event) }
        } catch {
            throw APIFailure(status: error.httpStatus, message: error.description, rule: "publish_limits")
        }
        let console = app.hub.console
        if console.isActive {
            console.apiMessages(
                events.requests, batch: batch, caller: request.remoteAddress.map(ConsoleConnectionInfo.describe))
        }
        app.hub.inbox.publish(events.requests, on: request.loop)
        guard events.asksForInfo else { return .answer(.accepted) }
        return .later { [hub = app.hub] in
            if batch {
                var results: [JSONValue] = []
                for (event, attributes) in zip(events.requests, events.info) {
                    results.append(Self.info(await hub.clusterChannelSummary(event.channels[0]), attributes))
                }
                return .json(.object(["batch": .array(results)]))
            }
            var channels: [String: JSONValue] = [:]
            for name in events.requests[0].channels {
                channels[name] = Self.info(await hub.clusterChannelSummary(name), events.info[0])
            }
            return .json(.object(["channels": .object(channels)]))
        }
    }

    /// Reports a refusal decided once the hub answered, and renders it.
    private func refusalReporter(_ app: App, _ request: Request, path: String)
        -> @Sendable (APIFailure) -> APIResponse
    {
        let console = app.hub.console
        let method = request.method.rawValue
        let caller = request.remoteAddress.map(ConsoleConnectionInfo.describe)
        return { failure in
            console.apiError(failure, method: method, path: path, caller: caller)
            return APIResponse(failure)
        }
    }

    static func info(_ summary: ChannelSummary, _ wanted: Set<String>) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        if wanted.contains("subscription_count") {
            fields["subscription_count"] = .number(Double(summary.subscriptionCount))
        }
        if wanted.contains("user_count"), let users = summary.userCount {
            fields["user_count"] = .number(Double(users))
        }
        return .object(fields)
    }

    static func validChannel(_ name: String) throws(APIFailure) {
        do {
            try ChannelName.validate(name)
        } catch {
            throw .badRequest("Invalid channel name '\(ErrorText.excerpt(name))': \(error.description)")
        }
    }
}
