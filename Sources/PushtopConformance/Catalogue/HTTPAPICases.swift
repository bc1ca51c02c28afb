import Foundation
import PusherProtocol

/// The HTTP API: publishing, its limits, signatures and timestamps, channel queries.
enum HTTPAPICases {
    static let events = DocSource.rest("POST /apps/[app_id]/events", anchor: "post-event-trigger-an-event")
    static let batch = DocSource.rest(
        "POST /apps/[app_id]/batch_events", anchor: "post-batch-events-trigger-multiple-events")
    static let auth = DocSource.rest("Authentication (signature, body_md5, auth_timestamp)", anchor: "authentication")
    static let channels = DocSource.rest(
        "GET /apps/[app_id]/channels", anchor: "get-channels-fetch-info-for-multiple-channels")
    static let channel = DocSource.rest(
        "GET /apps/[app_id]/channels/[channel_name]", anchor: "get-channel-fetch-info-for-one-channel")
    static let users = DocSource.rest("GET /apps/[app_id]/channels/[channel_name]/users", anchor: "get-users")

    static func publish(_ ctx: CaseContext, signing: APISigning) async -> APIAnswer {
        await ctx.trigger(channels: [ctx.channel()], event: "conform-signed", data: "{}", signing: signing)
    }

    /// A case that sends one request (`request`) and passes when the server refuses it with a 4xx, naming whether
    /// it chose `documented`, the status Pusher answers; `what` names what should be refused.
    static func refusalCase(
        _ id: String, _ source: DocSource, _ title: String, what: String, documented: Int,
        request: @escaping @Sendable (CaseContext) async -> APIAnswer
    ) -> ConformanceCase {
        ConformanceCase(id, .should, source, title) { ctx in
            try clientError(await request(ctx), what, documented: documented)
        }
    }

    /// A case that publishes with `signing` (a signature wrong in one way) and passes when the server refuses it,
    /// as Pusher does with 401.
    static func wronglySignedCase(_ id: String, _ title: String, signing: APISigning, what: String) -> ConformanceCase {
        refusalCase(id, auth, title, what: what, documented: 401) { ctx in await publish(ctx, signing: signing) }
    }

    static func batchBody(_ events: [(channel: String, name: String, socketID: String?)], info: String? = nil) -> String
    {
        let items: [JSONValue] = events.map { e in
            var fields: [String: JSONValue] = ["channel": .string(e.channel), "name": .string(e.name), "data": "{}"]
            if let socketID = e.socketID { fields["socket_id"] = .string(socketID) }
            if let info { fields["info"] = .string(info) }
            return .object(fields)
        }
        return JSONValue.object(["batch": .array(items)]).jsonString
    }

    /// Polls `GET path` until `accept` holds (or `timeout`): counts converge after a socket leaves.
    static func poll(
        _ ctx: CaseContext, _ path: String, query: [String: String] = [:], node: Int = 0,
        timeout: Double = 5, _ accept: (APIAnswer) -> Bool
    ) async -> APIAnswer {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var answer = await ctx.request(node: node, method: "GET", path: path, query: query)
        while !accept(answer), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
            answer = await ctx.request(node: node, method: "GET", path: path, query: query)
        }
        return answer
    }

    /// Polls `GET path` like ``poll(_:_:query:node:timeout:_:)`` and fails the case unless `accept` held in the end;
    /// `until` says what was expected.
    @discardableResult
    static func mustPoll(
        _ ctx: CaseContext, _ path: String, query: [String: String] = [:], node: Int = 0, until expected: String,
        _ accept: (APIAnswer) -> Bool
    ) async throws -> APIAnswer {
        let answer = await poll(ctx, path, query: query, node: node, accept)
        try check(accept(answer), expected, answer.description, ctx)
        return answer
    }

    static let all: [ConformanceCase] = publishing + signing + queries + vacatedByDisconnect + orderAndReach

    /// GET /channels and GET /channels/NAME after the last subscriber disconnects: with a close frame, and with
    /// its TCP connection simply dropped (the unsubscribe cases are `api.channels-drops-vacated` and
    /// `api.channel-unoccupied`).
    static let vacatedByDisconnect: [ConformanceCase] = [Departure.closeFrame, .drop].flatMap { departure in
        [
            ConformanceCase(
                "api.channels-drops-on-\(departure.rawValue)", .should, channels,
                "A channel leaves GET /channels once its last subscriber \(departure.phrase)."
            ) { ctx in
                let channel = ctx.channel()
                let c = try await ctx.subscribed(channel)
                await ctx.leave(c, channel, by: departure)
                try await mustPoll(
                    ctx, "/channels", query: ["filter_by_prefix": ctx.prefix],
                    until: "\(channel) no longer listed within 5 s of its last subscriber leaving"
                ) { $0.status == 200 && $0.json?["channels"]?[channel] == nil }
                return .pass("gone")
            },
            ConformanceCase(
                "api.channel-unoccupied-on-\(departure.rawValue)", .should, channel,
                "GET /channels/NAME says occupied: false once its last subscriber \(departure.phrase)."
            ) { ctx in
                let channel = ctx.channel()
                let c = try await ctx.subscribed(channel)
                await ctx.leave(c, channel, by: departure)
                try await mustPoll(
                    ctx, "/channels/\(channel)", until: "occupied: false within 5 s of the last subscriber leaving"
                ) { $0.status == 200 && $0.json?["occupied"]?.boolValue == false }
                return .pass("occupied: false")
            },
        ]
    }

    /// The events of one batch in order, and one event to hundreds of subscribers.
    static let orderAndReach: [ConformanceCase] = [
        ConformanceCase(
            "api.batch-order-kept", .should, batch,
            "The events of one batch_events request reach a subscriber in the order of the batch."
        ) { ctx in
            let channel = ctx.channel()
            let c = try await ctx.subscribed(channel)
            let names = (0..<10).map { "conform-batch-\($0)" }
            let from = c.socket.count
            try await ctx.mustPost(
                "/batch_events", body: batchBody(names.map { (channel: channel, name: $0, socketID: nil) }),
                what: "POST /batch_events")
            try await ctx.mustReceive(c, names[0], channel: channel, from: from)
            for name in names.dropFirst() { try await ctx.mustReceive(c, name, channel: channel, from: from) }
            let order = c.socket.frames.dropFirst(from).compactMap { frame -> String? in
                guard let event = frame.message?.event, event.hasPrefix("conform-batch-") else { return nil }
                return event
            }
            try check(
                order == names, "the batch's order: \(names.map { $0.dropFirst(14) }.joined(separator: " "))",
                "\(order.map { $0.dropFirst(14) }.joined(separator: " "))", ctx)
            return .pass("10 events in the batch's order")
        },
        ConformanceCase(
            "api.event-reaches-300-subscribers", .should, events,
            "One event published to a channel with 300 subscribers reaches every one of them.",
            needs: [.destructive], messages: 9000
        ) { ctx in
            let channel = ctx.channel()
            let count = 300
            var connections: [ProbeConnection] = []
            // In waves, as clients arrive: fifty handshakes at once at most.
            for wave in stride(from: 0, to: count, by: 50) {
                try await withThrowingTaskGroup(of: ProbeConnection.self) { group in
                    for _ in wave..<min(count, wave + 50) {
                        group.addTask { try await ctx.subscribed(channel) }
                    }
                    for try await c in group { connections.append(c) }
                }
            }
            let answer = await ctx.trigger(channels: [channel], event: "conform-to-all", data: #"{"n":300}"#)
            try ok(answer, "POST /events")
            var missing = 0
            await withTaskGroup(of: Bool.self) { group in
                for c in connections {
                    group.addTask {
                        await ctx.event(c, "conform-to-all", channel: channel, timeout: ctx.patience * 2) != nil
                    }
                }
                for await got in group where !got { missing += 1 }
            }
            try check(
                missing == 0, "the event on all \(count) subscribers", "\(count - missing) of \(count) received it")
            return .pass("\(count) of \(count) received it")
        },
    ]

    static let publishing: [ConformanceCase] = [
        ConformanceCase(
            "api.trigger-answers-json", .should, events,
            "POST /events answers 200 with a JSON object."
        ) { ctx in
            let answer = await ctx.trigger(channels: [ctx.channel()], event: "conform", data: "{}")
            try ok(answer, "POST /events")
            try check(answer.json?.objectValue != nil, "a JSON object body", answer.body)
            return .pass(answer.body)
        },
        ConformanceCase(
            "api.trigger-several-channels", .should, events,
            "One POST /events with three channels delivers the event on each."
        ) { ctx in
            let names = (1...3).map { ctx.channel("", "c\($0)") }
            let c = try await ctx.connect()
            for name in names { try await ctx.mustSubscribe(c, name) }
            try await ctx.publish("conform-multi", on: names)
            for name in names { try await ctx.mustReceive(c, "conform-multi", channel: name) }
            return .pass("3 channels")
        },
        ConformanceCase(
            "api.trigger-100-channels-accepted", .should, DocSource.limits,
            "An event on 100 channels at once is accepted.", messages: 100
        ) { ctx in
            let names = (1...100).map { ctx.channel("", "c\($0)") }
            try await ctx.publish("conform", on: names, what: "100 channels")
            return .pass("HTTP 200")
        },
        refusalCase(
            "api.trigger-101-channels-refused", DocSource.limits, "An event on 101 channels is refused with a 4xx.",
            what: "101 channels", documented: 400
        ) { ctx in
            let names = (1...101).map { ctx.channel("", "c\($0)") }
            return await ctx.trigger(channels: names, event: "conform", data: "{}")
        },
        ConformanceCase(
            "api.data-10kb-accepted", .should, DocSource.limits,
            "Data of exactly 10 KB (10,240 bytes) is accepted and delivered whole."
        ) { ctx in
            let data = String(repeating: "x", count: 10_240)
            let message = try await ctx.deliveredToSubscriber(
                "conform-10kb", on: ctx.channel(), data: data, what: "10,240 bytes")
            try check(
                message.dataText == data, "10,240 bytes delivered", "\(message.dataText?.utf8.count ?? 0) bytes", ctx)
            return .pass("delivered whole")
        },
        refusalCase(
            "api.data-over-10kb-413", DocSource.limits, "Data over 10 KB is refused with 413.",
            what: "10,241 bytes of data", documented: 413
        ) { ctx in
            await ctx.trigger(channels: [ctx.channel()], event: "conform", data: String(repeating: "x", count: 10_241))
        },
        refusalCase(
            "api.event-name-over-200-refused", events, "An event name over 200 characters is refused with a 4xx.",
            what: "a 201-character event name", documented: 400
        ) { ctx in
            await ctx.trigger(channels: [ctx.channel()], event: String(repeating: "e", count: 201), data: "{}")
        },
        refusalCase(
            "api.missing-name-refused", events, "An event without a name is refused with 400.",
            what: "no name", documented: 400
        ) { ctx in
            let body = JSONValue.object(["channels": [.string(ctx.channel())], "data": "{}"]).jsonString
            return await ctx.request(method: "POST", path: "/events", body: body)
        },
        refusalCase(
            "api.missing-channels-refused", events, "An event without channels is refused with 400.",
            what: "no channels", documented: 400
        ) { ctx in
            let body = JSONValue.object(["name": "conform", "data": "{}"]).jsonString
            return await ctx.request(method: "POST", path: "/events", body: body)
        },
        refusalCase(
            "api.invalid-json-refused", events, "A body that is not JSON is refused with 400.",
            what: "a body that is not JSON", documented: 400
        ) { ctx in
            await ctx.request(method: "POST", path: "/events", body: "{not json")
        },
        refusalCase(
            "api.invalid-channel-refused", DocSource.channelNames,
            "An event on an invalid channel name is refused with 400.",
            what: "an invalid channel name", documented: 400
        ) { ctx in
            await ctx.trigger(channels: ["conform bad name!"], event: "conform", data: "{}")
        },
        ConformanceCase(
            "api.socket-id-excluded", .should, DocSource.excludingRecipients,
            "socket_id keeps an event from that connection; the others receive it."
        ) { ctx in
            let channel = ctx.channel()
            let excluded = try await ctx.subscribed(channel), other = try await ctx.subscribed(channel)
            try ok(
                await ctx.trigger(channels: [channel], event: "conform-excl", data: "{}", socketID: excluded.socketID),
                "the trigger")
            try await ctx.mustReceive(other, "conform-excl", channel: channel)
            try await ctx.barrier([excluded], channel: channel)
            try check(
                ctx.received(excluded, "conform-excl").isEmpty, "nothing for socket_id \(excluded.socketID)",
                "the excluded connection received it", ctx)
            return .pass("excluded")
        },
        refusalCase(
            "api.socket-id-invalid-refused", DocSource.excludingRecipients,
            "A socket_id that is not NUMBER.NUMBER is refused with 400.",
            what: "socket_id 'not-a-socket'", documented: 400
        ) { ctx in
            await ctx.trigger(channels: [ctx.channel()], event: "conform", data: "{}", socketID: "not-a-socket")
        },
        ConformanceCase(
            "api.info-subscription-count", .should, events,
            "info=subscription_count in a trigger returns each channel's count."
        ) { ctx in
            let channel = ctx.channel()
            _ = try await ctx.subscribed(channel)
            let answer = await ctx.trigger(
                channels: [channel], event: "conform", data: "{}", info: "subscription_count")
            try ok(answer, "the trigger")
            let count = answer.json?["channels"]?[channel]?["subscription_count"]?.intValue
            try check(count == 1, "channels.\(channel).subscription_count = 1", answer.body, ctx)
            return .pass(answer.body)
        },
        ConformanceCase(
            "api.info-user-count", .should, events,
            "info=user_count in a trigger on a presence channel returns its user count."
        ) { ctx in
            let channel = ctx.channel("presence-")
            _ = try await ctx.subscribed(channel)
            let answer = await ctx.trigger(channels: [channel], event: "conform", data: "{}", info: "user_count")
            try ok(answer, "the trigger")
            try check(
                answer.json?["channels"]?[channel]?["user_count"]?.intValue == 1,
                "channels.\(channel).user_count = 1", answer.body, ctx)
            return .pass(answer.body)
        },
        ConformanceCase(
            "api.batch-delivers", .should, batch,
            "POST /batch_events delivers each event of the batch."
        ) { ctx in
            let a = ctx.channel("", "a"), b = ctx.channel("", "b")
            let c = try await ctx.connect()
            try await ctx.mustSubscribe(c, a)
            try await ctx.mustSubscribe(c, b)
            let body = batchBody([(a, "conform-batch-a", nil), (b, "conform-batch-b", nil)])
            try await ctx.mustPost("/batch_events", body: body, what: "the batch")
            try await ctx.mustReceive(c, "conform-batch-a", channel: a)
            try await ctx.mustReceive(c, "conform-batch-b", channel: b)
            return .pass("2 events")
        },
        ConformanceCase(
            "api.batch-10-accepted", .should, DocSource.limits,
            "A batch of 10 events is accepted.", messages: 10
        ) { ctx in
            let body = batchBody((1...10).map { (ctx.channel("", "c\($0)"), "conform", nil) })
            try await ctx.mustPost("/batch_events", body: body, what: "10 events")
            return .pass("HTTP 200")
        },
        refusalCase(
            "api.batch-11-refused", DocSource.limits, "A batch of 11 events is refused with a 4xx.",
            what: "11 events", documented: 400
        ) { ctx in
            let body = batchBody((1...11).map { (ctx.channel("", "c\($0)"), "conform", nil) })
            return await ctx.request(method: "POST", path: "/batch_events", body: body)
        },
        ConformanceCase(
            "api.batch-socket-id-excluded", .should, DocSource.excludingRecipients,
            "A batch event's own socket_id excludes that connection."
        ) { ctx in
            let channel = ctx.channel()
            let excluded = try await ctx.subscribed(channel), other = try await ctx.subscribed(channel)
            let body = batchBody([(channel, "conform-batch-excl", excluded.socketID)])
            try await ctx.mustPost("/batch_events", body: body, what: "the batch")
            try await ctx.mustReceive(other, "conform-batch-excl", channel: channel)
            try await ctx.barrier([excluded], channel: channel)
            try check(
                ctx.received(excluded, "conform-batch-excl").isEmpty, "nothing for the excluded socket",
                "it received the event", ctx)
            return .pass("excluded")
        },
        ConformanceCase(
            "api.batch-info", .should, batch,
            "A batch with info=subscription_count answers one attributes object per event."
        ) { ctx in
            let channel = ctx.channel()
            _ = try await ctx.subscribed(channel)
            let answer = try await ctx.mustPost(
                "/batch_events", body: batchBody([(channel, "conform", nil)], info: "subscription_count"),
                what: "the batch")
            let count = answer.json?["batch"]?.arrayValue?.first?["subscription_count"]?.intValue
            try check(count == 1, "batch[0].subscription_count = 1", answer.body, ctx)
            return .pass(answer.body)
        },
    ]

    static let signing: [ConformanceCase] = [
        wronglySignedCase(
            "api.unsigned-401", "A request without a signature is refused with 401.", signing: .unsigned,
            what: "an unsigned request"),
        wronglySignedCase(
            "api.bad-signature-401", "A wrong auth_signature is refused with 401.", signing: .badSignature,
            what: "a wrong signature"),
        wronglySignedCase(
            "api.wrong-secret-401", "A request signed with another secret is refused with 401.", signing: .wrongSecret,
            what: "another secret's signature"),
        wronglySignedCase(
            "api.wrong-key-401", "An auth_key of no app is refused with 401.", signing: .wrongKey,
            what: "an unknown auth_key"),
        wronglySignedCase(
            "api.body-md5-mismatch-401", "A body_md5 that is not the body's MD5 is refused with 401.",
            signing: .badBodyMD5, what: "a body_md5 of other bytes"),
        wronglySignedCase(
            "api.stale-timestamp-401",
            "An auth_timestamp 700 seconds old is refused with 401 (the window is 600 seconds).",
            signing: .timestampOffset(-700), what: "a timestamp 700 s old"),
        wronglySignedCase(
            "api.future-timestamp-401", "An auth_timestamp 700 seconds ahead is refused with 401.",
            signing: .timestampOffset(700), what: "a timestamp 700 s ahead"),
        ConformanceCase(
            "api.timestamp-in-window-accepted", .should, auth,
            "An auth_timestamp 300 seconds old is accepted (clocks differ)."
        ) { ctx in
            let answer = await publish(ctx, signing: .timestampOffset(-300))
            try ok(answer, "a timestamp 300 s old")
            return .pass("HTTP 200")
        },
        refusalCase(
            "api.unknown-app-refused", auth, "A request to an app id the server does not have is refused with a 4xx.",
            what: "an unknown app id", documented: 404
        ) { ctx in
            await ctx.request(method: "GET", path: "/channels", appID: "987654321")
        },
        refusalCase(
            "api.get-unsigned-401", auth, "An unsigned GET /channels is refused with 401.",
            what: "an unsigned query", documented: 401
        ) { ctx in
            await ctx.request(method: "GET", path: "/channels", signing: .unsigned)
        },
    ]

    static let queries: [ConformanceCase] = [
        ConformanceCase(
            "api.channels-lists-occupied", .should, channels,
            "GET /channels lists an occupied channel."
        ) { ctx in
            let channel = ctx.channel()
            _ = try await ctx.subscribed(channel)
            try await mustPoll(
                ctx, "/channels", query: ["filter_by_prefix": ctx.prefix], until: "\(channel) in channels"
            ) {
                $0.json?["channels"]?[channel] != nil
            }
            return .pass("listed")
        },
        ConformanceCase(
            "api.channels-drops-vacated", .should, channels,
            "A channel leaves GET /channels once its last subscriber unsubscribes."
        ) { ctx in
            let channel = ctx.channel()
            let c = try await ctx.subscribed(channel)
            ctx.unsubscribe(c, channel)
            _ = await ctx.roundTrip(c)
            try await mustPoll(
                ctx, "/channels", query: ["filter_by_prefix": ctx.prefix], until: "\(channel) no longer listed"
            ) { $0.status == 200 && $0.json?["channels"]?[channel] == nil }
            return .pass("gone")
        },
        ConformanceCase(
            "api.channels-filter-by-prefix", .should, channels,
            "filter_by_prefix lists only the channels with that prefix."
        ) { ctx in
            let inside = ctx.channel("", "in-a"), outside = ctx.channel("", "out-b")
            let c = try await ctx.connect()
            try await ctx.mustSubscribe(c, inside)
            try await ctx.mustSubscribe(c, outside)
            let prefix = ctx.prefix + "in-"
            let answer = try await ctx.mustGet("/channels", query: ["filter_by_prefix": prefix])
            let names = answer.json?["channels"]?.objectValue.map { Array($0.keys) } ?? []
            try check(names == [inside], "only \(inside)", answer.body, ctx)
            return .pass(names.joined(separator: ","))
        },
        refusalCase(
            "api.channels-user-count-needs-presence-prefix", channels,
            "info=user_count on GET /channels without filter_by_prefix=presence- is refused with 400.",
            what: "user_count over every channel", documented: 400
        ) { ctx in
            await ctx.request(method: "GET", path: "/channels", query: ["info": "user_count"])
        },
        ConformanceCase(
            "api.channels-user-count", .should, channels,
            "GET /channels?filter_by_prefix=presence-…&info=user_count gives each presence channel's users."
        ) { ctx in
            let channel = ctx.channel("presence-")
            _ = try await ctx.subscribed(channel)
            let answer = try await ctx.mustGet(
                "/channels", query: ["filter_by_prefix": "presence-" + ctx.prefix, "info": "user_count"])
            try check(
                answer.json?["channels"]?[channel]?["user_count"]?.intValue == 1, "user_count 1", answer.body, ctx)
            return .pass(answer.body)
        },
        ConformanceCase(
            "api.channel-occupied", .should, channel,
            "GET /channels/NAME says occupied: true for a channel with subscribers."
        ) { ctx in
            let name = ctx.channel()
            _ = try await ctx.subscribed(name)
            let answer = try await ctx.mustGet("/channels/\(name)")
            try check(answer.json?["occupied"]?.boolValue == true, "occupied: true", answer.body, ctx)
            return .pass(answer.body)
        },
        ConformanceCase(
            "api.channel-unoccupied", .should, channel,
            "GET /channels/NAME says occupied: false for a channel nobody is on."
        ) { ctx in
            let name = ctx.channel("", "empty")
            let answer = try await ctx.mustGet("/channels/\(name)")
            try check(answer.json?["occupied"]?.boolValue == false, "occupied: false", answer.body, ctx)
            return .pass(answer.body)
        },
        ConformanceCase(
            "api.channel-subscription-count", .should, channel,
            "info=subscription_count counts connections (two here)."
        ) { ctx in
            let name = ctx.channel()
            _ = try await ctx.subscribed(name)
            _ = try await ctx.subscribed(name)
            let answer = try await ctx.mustGet("/channels/\(name)", query: ["info": "subscription_count"])
            try check(answer.json?["subscription_count"]?.intValue == 2, "subscription_count 2", answer.body, ctx)
            return .pass(answer.body)
        },
        ConformanceCase(
            "api.channel-user-count-deduplicated", .should, channel,
            "On a presence channel a user with two connections is one user and two subscriptions."
        ) { ctx in
            let name = ctx.channel("presence-")
            let user = ctx.user()
            try await ctx.subscribedTwice(name, user: user)
            let answer = try await ctx.mustGet("/channels/\(name)", query: ["info": "user_count,subscription_count"])
            try check(answer.json?["user_count"]?.intValue == 1, "user_count 1", answer.body, ctx)
            if let subscriptions = answer.json?["subscription_count"]?.intValue {
                try check(subscriptions == 2, "subscription_count 2", answer.body, ctx)
            }
            return .pass(answer.body)
        },
        refusalCase(
            "api.channel-user-count-on-public-refused", channel,
            "info=user_count on a channel that is not presence is refused with 400.",
            what: "user_count of a public channel", documented: 400
        ) { ctx in
            await ctx.request(method: "GET", path: "/channels/\(ctx.channel())", query: ["info": "user_count"])
        },
        ConformanceCase(
            "api.users-lists-members", .should, users,
            "GET /channels/presence-…/users lists the user ids, once each."
        ) { ctx in
            let name = ctx.channel("presence-")
            let a = ctx.user("a"), b = ctx.user("b")
            _ = try await ctx.subscribed(name, user: a)
            _ = try await ctx.subscribed(name, user: b)
            _ = try await ctx.subscribed(name, user: b)
            let answer = try await ctx.mustGet("/channels/\(name)/users", what: "GET users")
            let ids = (answer.json?["users"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }.sorted()
            try check(ids == [a, b].sorted(), "users \(a), \(b)", answer.body, ctx)
            return .pass(answer.body)
        },
        refusalCase(
            "api.users-on-public-refused", users, "GET …/users of a channel that is not presence is refused with 400.",
            what: "users of a public channel", documented: 400
        ) { ctx in
            await ctx.request(method: "GET", path: "/channels/\(ctx.channel())/users")
        },
        ConformanceCase(
            "api.answers-are-json", .should, channels,
            "API answers are JSON objects."
        ) { ctx in
            let answer = try await ctx.mustGet("/channels")
            try check(answer.json?.objectValue != nil, "a JSON object", answer.body)
            return .pass(answer.body.prefix(80).description)
        },
    ]
}
