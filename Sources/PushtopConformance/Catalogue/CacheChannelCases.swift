import PusherProtocol

/// Cache channels: the last event replayed to new subscribers, `pusher:cache_miss` when there is none.
enum CacheChannelCases {
    static func replayed(_ ctx: CaseContext, kind: String) async throws -> CaseOutcome {
        let channel = ctx.channel(kind)
        try await ctx.publish("conform-first", on: [channel], data: "1", what: "the first event")
        try await ctx.publish("conform-last", on: [channel], data: "2", what: "the last event")
        let c = try await ctx.connect()
        try await ctx.mustSubscribe(c, channel)
        guard let message = await ctx.event(c, "conform-last", channel: channel) else {
            let missed = ctx.received(c, PusherEventName.cacheMiss).isEmpty ? "nothing" : "pusher:cache_miss"
            throw failure("the last event (conform-last) replayed on subscribing", missed, ctx)
        }
        try check(message.dataText == "2", "data 2", message.dataText ?? "-", ctx)
        try check(ctx.received(c, "conform-first").isEmpty, "only the last event", "the first one too", ctx)
        return .pass("conform-last replayed")
    }

    /// The cases gated by the feature probe: optional, unsupported on a server without cache channels.
    static let cacheCase = FeatureCases(.cacheChannels, source: .cacheChannels)

    static let all: [ConformanceCase] = [
        ConformanceCase(
            "cache.miss-on-empty", .optional, .cacheChannels,
            "Subscribing to a cache channel with nothing cached gets pusher:cache_miss."
        ) { ctx in
            // Not gated by the feature probe (which waits for this very cache_miss): a server that replays a cached
            // event has cache channels, and then owes the cache_miss.
            let channel = ctx.channel("cache-")
            let c = try await ctx.subscribed(channel)
            if await ctx.event(c, PusherEventName.cacheMiss, channel: channel) != nil {
                return .pass("pusher:cache_miss")
            }
            let cached = ctx.channel("cache-", "cached")
            try await ctx.publish("conform-cached", on: [cached], data: "1", what: "the event to cache")
            let d = try await ctx.subscribed(cached)
            guard await ctx.event(d, "conform-cached", channel: cached) != nil else {
                return .unsupported(
                    "\(ServerFeature.cacheChannels.rawValue): no pusher:cache_miss, and a cached event is not replayed")
            }
            throw failure(
                "pusher:cache_miss on subscribing to \(channel), empty (the server replays cached events on \(cached))",
                "none within \(ctx.patience) s", ctx)
        },
        cacheCase("cache.last-event-replayed", "A new subscriber of a cache channel receives its last event at once.") {
            ctx in
            try await replayed(ctx, kind: "cache-")
        },
        cacheCase("cache.no-miss-when-cached", "No pusher:cache_miss when an event is cached.") { ctx in
            let channel = ctx.channel("cache-")
            try await ctx.publish("conform-cached", on: [channel], what: "the event")
            let c = try await ctx.subscribed(channel)
            try await ctx.mustReceive(c, "conform-cached", channel: channel)
            try await ctx.barrier([c], channel: channel)
            try check(ctx.received(c, PusherEventName.cacheMiss).isEmpty, "no cache_miss", "pusher:cache_miss", ctx)
            return .pass("no miss")
        },
        cacheCase("cache.private-replayed", "private-cache- channels need auth and replay their last event.") { ctx in
            _ = try await ctx.mustRefuseWrongSignature(ctx.channel("private-cache-"))
            return try await replayed(ctx, kind: "private-cache-")
        },
        cacheCase("cache.presence-replayed", "presence-cache- channels replay their last event to a new member.") {
            ctx in
            try await replayed(ctx, kind: "presence-cache-")
        },
    ]
}
