import PusherProtocol

/// Presence channels: the signed member data, the roster, member events once per user, the limits.
enum PresenceCases {
    static let auth = DocSource(
        page: "Authentication and authorization signatures", section: "Presence channel",
        url: "https://pusher.com/docs/channels/library_auth_reference/auth-signatures/#presence-channel")
    static let events = DocSource.protocol7("Presence channel events", anchor: "presence-channel-events")

    /// The presence object of a subscription_succeeded frame.
    static func presence(_ frame: ProbeFrame) -> JSONValue? {
        frame.message?.dataJSON?["presence"]
    }

    static func memberEvents(_ ctx: CaseContext, _ c: ProbeConnection, _ event: String, _ channel: String, user: String)
        -> Int
    {
        ctx.received(c, event, channel: channel).filter { $0.dataJSON?["user_id"]?.stringValue == user }.count
    }

    /// Passes when a presence subscription with `channelData`, signed over it, is refused.
    static func refusedSigned(_ ctx: CaseContext, channelData: String, _ what: String) async throws -> CaseOutcome {
        let channel = ctx.channel("presence-")
        return try await ctx.mustRefuseSubscription(
            channel, auth: { ctx.auth($0, channel, channelData: channelData) }, channelData: channelData, what)
    }

    static let all: [ConformanceCase] = [
        ConformanceCase(
            "presence.subscribe", .must, auth,
            "A presence channel with auth over socket_id:channel:channel_data is subscribed."
        ) { ctx in
            try await ctx.subscriptionSucceeded(ctx.channel("presence-"))
            return .pass("subscribed")
        },
        ConformanceCase(
            "presence.succeeded-roster-shape", .must, events,
            "subscription_succeeded carries presence: ids, hash and count."
        ) { ctx in
            let frame = try await ctx.subscriptionSucceeded(ctx.channel("presence-"))
            guard let presence = presence(frame), presence["ids"]?.arrayValue != nil,
                presence["hash"]?.objectValue != nil,
                presence["count"]?.intValue != nil
            else { throw failure("data.presence with ids, hash and count", frame.text ?? "-", ctx) }
            return .pass("count \(presence["count"]!.intValue!)")
        },
        ConformanceCase(
            "presence.roster-includes-subscriber", .should, DocSource.presence,
            "The subscriber is in its own roster (ids, hash and count)."
        ) { ctx in
            let user = ctx.user()
            let frame = try await ctx.subscriptionSucceeded(ctx.channel("presence-"), user: user)
            let ids = presence(frame)?["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
            try check(
                ids.contains(user) && presence(frame)?["hash"]?[user] != nil, "\(user) in ids and hash",
                frame.text ?? "-", ctx)
            return .pass("ids \(ids)")
        },
        ConformanceCase(
            "presence.roster-lists-members", .must, events,
            "A new subscriber's roster lists the members already there, with their user_info."
        ) { ctx in
            let channel = ctx.channel("presence-")
            let first = ctx.user("first")
            _ = try await ctx.subscribed(channel, user: first, info: ["name": "First"])
            let frame = try await ctx.subscriptionSucceeded(channel)
            let info = presence(frame)?["hash"]?[first]
            try check(info == ["name": "First"], "hash[\(first)] = {\"name\":\"First\"}", frame.text ?? "-", ctx)
            return .pass("existing member listed with its info")
        },
        ConformanceCase(
            "presence.user-info-verbatim", .must, events,
            "user_info arrives as the same JSON value (nested objects, numbers, unicode) in hash and member_added."
        ) { ctx in
            let channel = ctx.channel("presence-")
            let info: JSONValue = [
                "name": "Zoë 世界", "n": 42, "tags": ["a", "b"], "nested": ["ok": true, "none": nil],
            ]
            let watcher = try await ctx.subscribed(channel)
            let user = ctx.user()
            let frame = try await ctx.subscriptionSucceeded(channel, user: user, info: info)
            let added = try await ctx.mustReceive(watcher, PusherEventName.memberAdded, channel: channel)
            try check(
                added.dataJSON?["user_info"] == info, "member_added user_info \(info.jsonString)",
                added.dataText ?? "-", ctx)
            try check(
                presence(frame)?["hash"]?[user] == info, "hash user_info \(info.jsonString)", frame.text ?? "-", ctx)
            return .pass("user_info unchanged")
        },
        ConformanceCase(
            "presence.refused-without-auth", .must, auth,
            "A presence subscription without auth is refused."
        ) { ctx in
            let channel = ctx.channel("presence-")
            return try await ctx.mustRefuseSubscription(
                channel,
                sending: { _ in
                    ["channel": .string(channel), "channel_data": .string(ctx.channelData(user: ctx.user()))]
                }, "no auth")
        },
        ConformanceCase(
            "presence.refused-without-channel-data", .must, auth,
            "A presence subscription without channel_data is refused."
        ) { ctx in
            let channel = ctx.channel("presence-")
            return try await ctx.mustRefuseSubscription(
                channel, sending: { ["channel": .string(channel), "auth": .string(ctx.auth($0, channel))] },
                "no channel_data")
        },
        ConformanceCase(
            "presence.channel-data-bound-to-signature", .must, auth,
            "channel_data is part of what is signed: other data than was signed is refused."
        ) { ctx in
            let channel = ctx.channel("presence-")
            let signed = ctx.channelData(user: ctx.user("alice")), sent = ctx.channelData(user: ctx.user("mallory"))
            let first = try await ctx.connect()
            let answer = await ctx.subscribe(
                first, channel, auth: ctx.auth(first, channel, channelData: signed),
                channelData: sent)
            if case .succeeded = answer {
                throw failure(
                    "channel_data other than the signed one refused",
                    "accepted: data signed for one user was used as another (the signature is not checked over channel_data)",
                    ctx)
            }
            let second = try await ctx.connect()
            let unbound = await ctx.subscribe(second, channel, auth: ctx.auth(second, channel), channelData: sent)
            if case .succeeded = unbound {
                throw failure(
                    "a signature over socket_id:channel alone (without channel_data) refused",
                    "accepted: presence data is not bound to the signature", ctx)
            }
            return .pass("both refused: \(answer.refusal ?? "silently"); \(unbound.refusal ?? "silently")")
        },
        ConformanceCase(
            "presence.refused-channel-data-not-json", .must, auth,
            "channel_data that is not JSON is refused (even when signed)."
        ) { ctx in
            try await refusedSigned(ctx, channelData: "not json", "channel_data that is not JSON")
        },
        ConformanceCase(
            "presence.refused-without-user-id", .must, auth,
            "channel_data without user_id is refused (even when signed)."
        ) { ctx in
            try await refusedSigned(
                ctx, channelData: #"{"user_info":{"name":"nobody"}}"#, "channel_data without user_id")
        },
        ConformanceCase(
            "presence.member-added", .must, events,
            "Members get pusher_internal:member_added with user_id and user_info when another user joins."
        ) { ctx in
            let watch = try await PresenceWatch(ctx, info: ["name": "New"])
            let added = try await watch.mustAnnounce(
                ctx, PusherEventName.memberAdded, expected: "user_id \(watch.user)")
            return .pass(added.dataText ?? "")
        },
        ConformanceCase(
            "presence.member-added-not-to-self", .must, events,
            "The joining connection does not get member_added for itself."
        ) { ctx in
            let channel = ctx.channel("presence-"), marker = ctx.channel("", "marker")
            let user = ctx.user()
            let c = try await ctx.subscribed(channel, user: user)
            try await ctx.mustSubscribe(c, marker)
            try await ctx.barrier([c], channel: marker)
            try check(
                memberEvents(ctx, c, PusherEventName.memberAdded, channel, user: user) == 0,
                "no member_added for itself", "it came", ctx)
            return .pass("none for itself")
        },
        ConformanceCase(
            "presence.member-removed-on-unsubscribe", .must, events,
            "Members get member_removed when a user unsubscribes."
        ) { ctx in
            let watch = try await PresenceWatch(ctx)
            ctx.unsubscribe(watch.member, watch.channel)
            let removed = try await watch.mustAnnounce(
                ctx, PusherEventName.memberRemoved, expected: "user_id \(watch.user)")
            return .pass(removed.dataText ?? "")
        },
        ConformanceCase(
            "presence.member-removed-on-disconnect", .must, events,
            "Members get member_removed when a user's connection drops without a goodbye."
        ) { ctx in
            let watch = try await PresenceWatch(ctx)
            watch.member.socket.drop()
            try await watch.mustAnnounce(
                ctx, PusherEventName.memberRemoved, timeout: 10, expected: "user_id \(watch.user)")
            return .pass("removed")
        },
        ConformanceCase(
            "presence.member-added-once-per-user", .should, DocSource.presence,
            "A user with two connections (two tabs) is one member: one member_added."
        ) { ctx in
            let watch = try await MarkedPresenceWatch(ctx)
            let user = ctx.user()
            _ = try await ctx.subscribed(watch.channel, user: user)
            _ = try await ctx.subscribed(watch.channel, user: user)
            try await ctx.barrier([watch.watcher], channel: watch.marker)
            let count = memberEvents(ctx, watch.watcher, PusherEventName.memberAdded, watch.channel, user: user)
            try check(
                count == 1, "one member_added for \(user)", "\(count) (one per connection, as Reverb before PR #216)",
                ctx)
            return .pass("one member_added for two connections")
        },
        ConformanceCase(
            "presence.member-removed-once-per-user", .should, DocSource.presence,
            "member_removed comes only when a user's last connection leaves."
        ) { ctx in
            let watch = try await MarkedPresenceWatch(ctx)
            let channel = watch.channel, user = ctx.user()
            let (tab1, tab2) = try await ctx.subscribedTwice(channel, user: user)
            ctx.unsubscribe(tab1, channel)
            _ = await ctx.roundTrip(tab1)
            try await ctx.barrier([watch.watcher], channel: watch.marker)
            let early = memberEvents(ctx, watch.watcher, PusherEventName.memberRemoved, channel, user: user)
            try check(early == 0, "no member_removed while the user has another connection", "member_removed came", ctx)
            ctx.unsubscribe(tab2, channel)
            try await ctx.mustReceive(watch.watcher, PusherEventName.memberRemoved, channel: channel)
            return .pass("removed once, with the last connection")
        },
        ConformanceCase(
            "presence.count-counts-users", .should, DocSource.presence,
            "The roster counts users, not connections."
        ) { ctx in
            let channel = ctx.channel("presence-")
            let user = ctx.user()
            try await ctx.subscribedTwice(channel, user: user)
            let frame = try await ctx.subscriptionSucceeded(channel)
            let count = presence(frame)?["count"]?.intValue
            try check(
                count == 2, "count 2 (two users, three connections)", "count \(count.map(String.init) ?? "-")", ctx)
            return .pass("count 2")
        },
        ConformanceCase(
            "presence.rejoin-announced", .must, events,
            "A user who left and comes back is announced again with member_added."
        ) { ctx in
            let watch = try await PresenceWatch(ctx)
            let channel = watch.channel, watcher = watch.watcher
            ctx.unsubscribe(watch.member, channel)
            try await ctx.mustReceive(watcher, PusherEventName.memberRemoved, channel: channel)
            let from = watcher.socket.count
            try await ctx.mustSubscribe(watch.member, channel, user: watch.user)
            try await ctx.mustReceive(watcher, PusherEventName.memberAdded, channel: channel, from: from)
            return .pass("added, removed, added")
        },
        ConformanceCase(
            "presence.events-delivered", .must, events,
            "Events triggered on a presence channel reach its members."
        ) { ctx in
            try await ctx.deliveredToSubscriber("conform-presence", on: ctx.channel("presence-"))
            return .pass("delivered")
        },
        ConformanceCase(
            "presence.user-info-over-1kb-refused", .should, DocSource.presenceLimits,
            "user_info over 1 KB is refused."
        ) { ctx in
            let info: JSONValue = ["blob": .string(String(repeating: "x", count: 1100))]
            return try await ctx.mustRefuseSubscription(ctx.channel("presence-"), info: info, "1.1 KB of user_info")
        },
        ConformanceCase(
            "presence.user-id-over-128-refused", .should, DocSource.presenceLimits,
            "A user_id longer than 128 characters is refused."
        ) { ctx in
            try await ctx.mustRefuseSubscription(
                ctx.channel("presence-"), user: String(repeating: "u", count: 129), "a 129-character user_id")
        },
        ConformanceCase(
            "presence.member-limit-100", .should, DocSource.presenceLimits,
            "The 101st member of a presence channel is refused.", needs: [.destructive],
            // Joins: 4,950 `member_added` and 200 more; leaves, when the case closes its connections: 4,950
            // `member_removed`, which Pusher bills too.
            messages: 10_400
        ) { ctx in
            let channel = ctx.channel("presence-")
            for n in 1...100 {
                let c = try await ctx.connect()
                let answer = await ctx.subscribe(c, channel, user: ctx.user("m\(n)-"))
                guard case .succeeded = answer else {
                    throw failure("100 members accepted", "member \(n): \(answer.refusal ?? "no answer")", nil)
                }
            }
            let extra = try await ctx.connect()
            return try refused(await ctx.subscribe(extra, channel), "the 101st member", ctx)
        },
    ]
}
