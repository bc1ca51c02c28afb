import Crypto
import Foundation
import PusherProtocol

/// Webhooks: the documented format and signature, each event type, retries, and the grace before channel_vacated
/// and member_removed.
enum WebhookCases {
    static let format = DocSource.webhooks("Webhook format", anchor: "webhook-format")
    static let security = DocSource.webhooks("Security: X-Pusher-Key and X-Pusher-Signature", anchor: "security")
    static let occupied = DocSource.webhooks("Channel existence events", anchor: "channel-existence-events")
    static let presence = DocSource.webhooks(
        "Presence events (delayed: a return within 3 s sends neither)", anchor: "presence-events")
    static let client = DocSource.webhooks("Client events", anchor: "client-events")
    static let cacheMiss = DocSource.webhooks("Cache miss", anchor: "cache-miss")
    static let retries = DocSource.webhooks(
        "Retries: a non-2xx answer is retried with back-off for 5 minutes", anchor: "webhook-format")
    /// Seconds a case gives a debounced webhook to show up (Pusher's 3 s grace, and a margin).
    static let grace = 6.0

    /// The events of a request: its `events` array, or the body itself when a server forgot to wrap it (soketi #137),
    /// so that only the format case fails for that.
    static func events(_ post: WebhookListener.Received) -> [JSONValue] {
        if let events = post.json?["events"]?.arrayValue { return events }
        if let json = post.json, json["name"] != nil { return [json] }
        return []
    }

    static func matches(_ event: JSONValue, _ name: String, _ channel: String, user: String? = nil) -> Bool {
        event["name"]?.stringValue == name && event["channel"]?.stringValue == channel
            && (user == nil || event["user_id"]?.stringValue == user)
    }

    /// Accepted (2xx) requests holding `name` for `channel`.
    static func accepted(_ ctx: CaseContext, _ name: String, _ channel: String, user: String? = nil) -> [JSONValue] {
        (ctx.webhooks?.received ?? []).filter { (200..<300).contains($0.status) }
            .flatMap(events).filter { matches($0, name, channel, user: user) }
    }

    /// The first accepted request holding `name` for `channel`, within `timeout`.
    static func wait(_ ctx: CaseContext, _ name: String, _ channel: String, user: String? = nil, timeout: Double? = nil)
        async -> WebhookListener.Received?
    {
        await ctx.webhooks?.waitFor(timeout ?? ctx.patience + 2) { post in
            (200..<300).contains(post.status) && events(post).contains { matches($0, name, channel, user: user) }
        }
    }

    /// What came for `channel` instead: the webhook posts that name it (their events and the status they were
    /// answered), or that no post named it (and how many came in all), never a bare "nothing".
    static func cameFor(_ ctx: CaseContext, _ channel: String) -> String {
        let all = ctx.webhooks?.received ?? []
        let posts = all.filter { $0.bodyText.contains(channel) }
        guard !posts.isEmpty else {
            return
                "no webhook for \(channel) (\(all.count) webhook post\(all.count == 1 ? "" : "s") for other channels)"
        }
        let described = posts.map { post -> String in
            let names = events(post).filter { $0["channel"]?.stringValue == channel }.map { event in
                (event["name"]?.stringValue ?? "?") + (event["user_id"]?.stringValue.map { " \($0)" } ?? "")
            }
            let what = names.isEmpty ? String(post.bodyText.prefix(200)) : names.joined(separator: ", ")
            return String(format: "%.1f s: ", post.at) + what + " (answered \(post.status))"
        }
        return "webhooks for \(channel): " + described.joined(separator: "; ")
    }

    static func mustWait(
        _ ctx: CaseContext, _ name: String, _ channel: String, user: String? = nil,
        timeout: Double? = nil
    ) async throws -> WebhookListener.Received {
        guard let post = await wait(ctx, name, channel, user: user, timeout: timeout) else {
            throw failure(
                "a \(name) webhook for \(channel)\(user.map { " (user \($0))" } ?? "") within "
                    + "\(Int(timeout ?? ctx.patience + 2)) s", cameFor(ctx, channel), ctx)
        }
        return post
    }

    /// Subscribes a connection to a new public channel of the case and returns the channel_occupied webhook it sends.
    static func occupiedPost(_ ctx: CaseContext) async throws -> WebhookListener.Received {
        let channel = ctx.channel()
        _ = try await ctx.subscribed(channel)
        return try await mustWait(ctx, "channel_occupied", channel)
    }

    static func webhookCase(
        _ id: String, _ source: DocSource, _ title: String, serverWait: ServerWait? = nil,
        body: @escaping @Sendable (CaseContext) async throws -> CaseOutcome
    ) -> ConformanceCase {
        ConformanceCase(
            id, .optional, source, title, needs: [.webhooks], feature: .webhooks, serverWait: serverWait, body: body)
    }

    static let all: [ConformanceCase] = formatCases + lifecycle + vacatedByDisconnect + debounce + others

    /// channel_vacated and member_removed when the last subscriber disconnects, with a close frame and with its
    /// TCP connection simply dropped (the unsubscribe cases are `webhooks.channel-vacated` and
    /// `webhooks.member-removed`).
    static let vacatedByDisconnect: [ConformanceCase] = [Departure.closeFrame, .drop].flatMap { departure in
        [
            webhookCase(
                "webhooks.vacated-on-\(departure.rawValue)", occupied,
                "The last subscriber of a channel that \(departure.phrase) sends channel_vacated."
            ) { ctx in
                let channel = ctx.channel()
                let c = try await ctx.subscribed(channel)
                await ctx.leave(c, channel, by: departure)
                _ = try await mustWait(ctx, "channel_vacated", channel, timeout: grace + ctx.patience)
                return .pass("channel_vacated")
            },
            webhookCase(
                "webhooks.member-removed-on-\(departure.rawValue)", presence,
                "A presence member whose only connection \(departure.phrase) sends member_removed."
            ) { ctx in
                let channel = ctx.channel("presence-"), user = ctx.user()
                let c = try await ctx.subscribed(channel, user: user)
                _ = try await mustWait(ctx, "member_added", channel, user: user)
                await ctx.leave(c, channel, by: departure)
                _ = try await mustWait(ctx, "member_removed", channel, user: user, timeout: grace + ctx.patience)
                return .pass("member_removed \(user)")
            },
        ]
    }

    static let formatCases: [ConformanceCase] = [
        webhookCase(
            "webhooks.wrapped-in-events", format,
            "A webhook body is {\"time_ms\":…,\"events\":[…]} (soketi #137 posted bare events)."
        ) { ctx in
            let channel = ctx.channel()
            _ = try await ctx.subscribed(channel)
            guard let post = await ctx.webhooks?.waitFor(ctx.patience + 2, { $0.bodyText.contains(channel) }) else {
                throw failure("a webhook for \(channel)", cameFor(ctx, channel), ctx)
            }
            try check(post.json?["events"]?.arrayValue != nil, "an events array", post.bodyText)
            try check((post.json?["time_ms"]?.numberValue ?? 0) > 1e12, "time_ms in milliseconds", post.bodyText)
            return .pass(post.bodyText.prefix(160).description)
        },
        webhookCase(
            "webhooks.signed", security,
            "X-Pusher-Key is the app key and X-Pusher-Signature the HMAC-SHA256 of the body with the secret."
        ) { ctx in
            let post = try await occupiedPost(ctx)
            try check(
                post.headers["x-pusher-key"] == ctx.target.key, "X-Pusher-Key \(ctx.target.key)",
                post.headers["x-pusher-key"] ?? "no header")
            let expected = ChannelAuthSignature.hmacHex(secret: ctx.target.secret, message: post.bodyText)
            let got = post.headers["x-pusher-signature"] ?? "no header"
            try check(ChannelAuthSignature.constantTimeEquals(expected, got), "X-Pusher-Signature \(expected)", got)
            return .pass("key and signature verify")
        },
        webhookCase("webhooks.json-content-type", format, "Webhooks are posted as application/json.") { ctx in
            let post = try await occupiedPost(ctx)
            let type = post.headers["content-type"] ?? "none"
            try check(
                post.method == "POST" && type.lowercased().hasPrefix("application/json"), "POST application/json",
                "\(post.method) \(type)")
            return .pass("\(post.method) \(type)")
        },
    ]

    static let lifecycle: [ConformanceCase] = [
        webhookCase("webhooks.channel-occupied", occupied, "The first subscriber of a channel sends channel_occupied.")
        { ctx in
            _ = try await occupiedPost(ctx)
            return .pass("channel_occupied")
        },
        webhookCase("webhooks.channel-vacated", occupied, "The last subscriber leaving sends channel_vacated.") { ctx in
            let channel = ctx.channel()
            let c = try await ctx.subscribed(channel)
            ctx.unsubscribe(c, channel)
            _ = try await mustWait(ctx, "channel_vacated", channel, timeout: grace + ctx.patience)
            return .pass("channel_vacated")
        },
        webhookCase(
            "webhooks.occupied-once", occupied,
            "Each change sends one webhook, not one per node or per retry (soketi PR #438)."
        ) { ctx in
            let channel = ctx.channel()
            _ = try await ctx.subscribed(channel)
            _ = try await ctx.subscribed(channel)
            _ = try await mustWait(ctx, "channel_occupied", channel)
            await ctx.settle(1.5)
            let count = accepted(ctx, "channel_occupied", channel).count
            try check(count == 1, "one channel_occupied", "\(count)")
            return .pass("once")
        },
        webhookCase("webhooks.member-added", presence, "A user joining a presence channel sends member_added.") { ctx in
            let channel = ctx.channel("presence-")
            let user = ctx.user()
            _ = try await ctx.subscribed(channel, user: user)
            _ = try await mustWait(ctx, "member_added", channel, user: user)
            return .pass("member_added \(user)")
        },
        webhookCase("webhooks.member-removed", presence, "A user leaving a presence channel sends member_removed.") {
            ctx in
            let channel = ctx.channel("presence-")
            let user = ctx.user()
            let c = try await ctx.subscribed(channel, user: user)
            ctx.unsubscribe(c, channel)
            _ = try await mustWait(ctx, "member_removed", channel, user: user, timeout: grace + ctx.patience)
            return .pass("member_removed \(user)")
        },
        webhookCase(
            "webhooks.member-added-once-per-user", presence,
            "A user with two connections sends one member_added."
        ) { ctx in
            let channel = ctx.channel("presence-")
            let user = ctx.user()
            try await ctx.subscribedTwice(channel, user: user)
            _ = try await mustWait(ctx, "member_added", channel, user: user)
            await ctx.settle(1.5)
            let count = accepted(ctx, "member_added", channel, user: user).count
            try check(count == 1, "one member_added for \(user)", "\(count)")
            return .pass("once")
        },
    ]

    static let debounce: [ConformanceCase] = [
        webhookCase(
            "webhooks.vacated-cancelled-on-quick-return", presence,
            "Leaving and coming back within a second sends no channel_vacated (a page reload)."
        ) { ctx in
            let channel = ctx.channel()
            let c = try await ctx.subscribed(channel)
            _ = try await mustWait(ctx, "channel_occupied", channel)
            ctx.unsubscribe(c, channel)
            _ = await ctx.roundTrip(c)
            try await ctx.mustSubscribe(c, channel)
            await ctx.settle(grace)
            let vacated = accepted(ctx, "channel_vacated", channel).count
            let occupied = accepted(ctx, "channel_occupied", channel).count
            try check(
                vacated == 0 && occupied == 1,
                "no channel_vacated and one channel_occupied for a return within the grace",
                "\(vacated) channel_vacated, \(occupied) channel_occupied (no grace, as soketi #830)")
            return .pass("neither sent")
        },
        webhookCase(
            "webhooks.member-removed-cancelled-on-quick-return", presence,
            "A member who leaves and returns within a second sends no member_removed (Pusher's 3 s grace)."
        ) { ctx in
            let channel = ctx.channel("presence-")
            let stay = try await ctx.subscribed(channel)
            _ = stay
            let user = ctx.user()
            let c = try await ctx.subscribed(channel, user: user)
            _ = try await mustWait(ctx, "member_added", channel, user: user)
            c.socket.drop()
            let back = try await ctx.connect()
            try await ctx.mustSubscribe(back, channel, user: user)
            await ctx.settle(grace)
            let removed = accepted(ctx, "member_removed", channel, user: user).count
            let added = accepted(ctx, "member_added", channel, user: user).count
            try check(
                removed == 0 && added == 1, "no member_removed and one member_added for a quick return",
                "\(removed) member_removed, \(added) member_added (no grace, as soketi #830)")
            return .pass("neither sent")
        },
        webhookCase(
            "webhooks.vacated-only-when-empty", occupied,
            "channel_vacated is sent only when no one is left, and the API agrees then (soketi #616)."
        ) { ctx in
            let channel = ctx.channel()
            let a = try await ctx.subscribed(channel), b = try await ctx.subscribed(channel)
            ctx.unsubscribe(a, channel)
            await ctx.settle(grace)
            try check(
                accepted(ctx, "channel_vacated", channel).isEmpty, "no channel_vacated while a subscriber remains",
                "channel_vacated sent with one subscriber left")
            ctx.unsubscribe(b, channel)
            _ = try await mustWait(ctx, "channel_vacated", channel, timeout: grace + ctx.patience)
            let answer = await ctx.request(method: "GET", path: "/channels/\(channel)")
            try check(
                answer.json?["occupied"]?.boolValue == false, "the API to say occupied: false once vacated",
                answer.description)
            return .pass("vacated once empty; the API agrees")
        },
    ]

    static let others: [ConformanceCase] = [
        webhookCase(
            "webhooks.client-event", client,
            "A client event sends client_event with channel, event, data, socket_id and user_id."
        ) { ctx in
            let user = ctx.user("sender")
            let (channel, sender, receiver) = try await ClientEventCases.pair(ctx, kind: "presence-", sender: user)
            ctx.sendClientEvent(sender, channel, event: "client-conform-hook", data: ["n": 1])
            try await ctx.mustReceive(receiver, "client-conform-hook", channel: channel)
            let post = try await mustWait(ctx, "client_event", channel)
            guard let event = events(post).first(where: { matches($0, "client_event", channel) }) else {
                throw failure("client_event", post.bodyText)
            }
            try check(
                event["event"]?.stringValue == "client-conform-hook", "event client-conform-hook", event.jsonString)
            try check(
                event["socket_id"]?.stringValue == sender.socketID, "socket_id \(sender.socketID)", event.jsonString)
            try check(event["user_id"]?.stringValue == user, "user_id \(user)", event.jsonString)
            try check(
                event["data"]?.stringValue.flatMap(JSONValue.parseIfJSON) == ["n": 1], #"data "{\"n\":1}""#,
                event.jsonString)
            return .pass(event.jsonString)
        },
        webhookCase(
            "webhooks.cache-miss", cacheMiss,
            "Subscribing to an empty cache channel sends cache_miss."
        ) { ctx in
            if let why = await ctx.supports(.cacheChannels) { return .unsupported("cache channels: \(why)") }
            let channel = ctx.channel("cache-")
            _ = try await ctx.subscribed(channel)
            _ = try await mustWait(ctx, "cache_miss", channel)
            return .pass("cache_miss")
        },
        webhookCase(
            "webhooks.retried", retries, "A webhook answered 500 is posted again.", serverWait: .seconds(150)
        ) { ctx in
            let channel = ctx.channel()
            ctx.webhooks?.fail(1, status: 500) { $0.bodyText.contains(channel) }
            _ = try await ctx.subscribed(channel)
            let post = try await mustWait(ctx, "channel_occupied", channel, timeout: 150)
            let failed = ctx.webhooks?.received.first { $0.status == 500 && $0.bodyText.contains(channel) }
            try check(failed != nil, "a first attempt answered 500", cameFor(ctx, channel), ctx)
            return .pass(String(format: "retried %.1f s after the 500", post.at - failed!.at))
        },
    ]
}
