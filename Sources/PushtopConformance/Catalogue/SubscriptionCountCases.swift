import PusherProtocol

/// `pusher_internal:subscription_count`: subscribers learn how many connections share a channel.
enum SubscriptionCountCases {
    static func count(_ message: PusherMessage?) -> Int? {
        message?.dataJSON?["subscription_count"]?.intValue
    }

    /// Each case here: optional, unsupported on a server that sends no subscription counts.
    static let countCase = FeatureCases(.subscriptionCount, source: .subscriptionCount)

    static let all: [ConformanceCase] = [
        countCase("subscription-count.on-subscribe", "A subscriber of a public channel gets its subscription_count.") {
            ctx in
            let channel = ctx.channel()
            let c = try await ctx.subscribed(channel)
            let message = try await ctx.mustReceive(c, PusherEventName.subscriptionCount, channel: channel)
            try check(count(message) == 1, "subscription_count 1", message.dataText ?? "-", ctx)
            return .pass(message.dataText ?? "")
        },
        countCase("subscription-count.updates", "When a second connection subscribes, the first learns the new count.")
        { ctx in
            let channel = ctx.channel()
            let first = try await ctx.subscribed(channel)
            _ = try await ctx.subscribed(channel)
            let got = await first.socket.waitFor(ctx.patience + 2) { frame in
                frame.message?.event == PusherEventName.subscriptionCount && count(frame.message) == 2
            }
            try check(
                got != nil, "subscription_count 2",
                ctx.received(first, PusherEventName.subscriptionCount)
                    .compactMap(\.dataText).joined(separator: ", "), ctx)
            return .pass("count 2")
        },
        countCase("subscription-count.not-on-presence", "Presence channels get member events, not subscription_count.")
        { ctx in
            let channel = ctx.channel("presence-")
            let c = try await ctx.subscribed(channel)
            _ = try await ctx.subscribed(channel)
            try await ctx.barrier([c], channel: channel)
            await ctx.settle()
            try check(
                ctx.received(c, PusherEventName.subscriptionCount).isEmpty, "no subscription_count on presence",
                "subscription_count sent", ctx)
            return .pass("none on presence")
        },
        countCase(
            "subscription-count.agrees-with-api", "The count sent to subscribers is the HTTP API's subscription_count."
        ) { ctx in
            let channel = ctx.channel()
            let first = try await ctx.subscribed(channel)
            _ = try await ctx.subscribed(channel)
            _ = await first.socket.waitFor(ctx.patience + 2) { count($0.message) == 2 }
            let answer = await ctx.request(
                method: "GET", path: "/channels/\(channel)", query: ["info": "subscription_count"])
            guard let last = count(ctx.received(first, PusherEventName.subscriptionCount).last) else {
                throw failure(
                    "pusher_internal:subscription_count on a channel of two subscribers",
                    "received: \(first.socket.received(from: 1))", ctx)
            }
            let api = answer.json?["subscription_count"]?.intValue
            try check(
                api == last, "the API's subscription_count = \(last), the count sent to subscribers",
                api == nil ? "no subscription_count: \(answer.description)" : answer.description, ctx)
            return .pass("both \(last)")
        },
    ]
}
