import PusherProtocol

/// Public channels: subscribe, unsubscribe, events, names.
enum PublicChannelCases {
    static let subscription = DocSource.protocol7("Subscription events", anchor: "subscription-events")
    static let channelEvents = DocSource.protocol7("Channel events", anchor: "channel-events")

    /// Triggers `data` and checks that it arrives byte for byte.
    static func verbatim(_ data: String, _ ctx: CaseContext) async throws -> CaseOutcome {
        let message = try await ctx.deliveredToSubscriber("conform-data", on: ctx.channel(), data: data)
        guard case .string(let got)? = message.data else {
            throw failure("data as a string", message.data?.jsonString ?? "none", ctx)
        }
        try check(got == data, "data byte for byte: \(data)", got, ctx)
        return .pass("\(data.utf8.count) bytes, unchanged")
    }

    static let all: [ConformanceCase] = [
        ConformanceCase(
            "public.subscribe", .must, subscription,
            "pusher:subscribe to a public channel is answered with pusher_internal:subscription_succeeded."
        ) { ctx in
            let frame = try await ctx.subscriptionSucceeded(ctx.channel())
            return .pass(frame.text ?? "")
        },
        ConformanceCase(
            "public.event-delivered", .must, channelEvents,
            "An event triggered through the HTTP API reaches a subscriber with its channel, name and data."
        ) { ctx in
            let message = try await ctx.deliveredToSubscriber("conform-event", on: ctx.channel(), data: #"{"n":1}"#)
            try check(message.dataText == #"{"n":1}"#, #"data {"n":1}"#, message.dataText ?? "none", ctx)
            return .pass("delivered")
        },
        ConformanceCase(
            "public.event-data-json-verbatim", .must, channelEvents,
            "JSON data is delivered as the same string, spacing and key order kept."
        ) { ctx in
            try await verbatim(#"{"b": 2,  "a":[1, 2.50, {"x":"y"}], "z" : null}"#, ctx)
        },
        ConformanceCase(
            "public.event-data-text-verbatim", .must, channelEvents,
            "Data that is not JSON is delivered unchanged."
        ) { ctx in
            try await verbatim("plain text, not JSON: {", ctx)
        },
        ConformanceCase(
            "public.event-data-unicode", .must, channelEvents,
            "Unicode and escapes in data arrive unchanged."
        ) { ctx in
            try await verbatim(#"{"text":"héllo 世界 🎉 \"quoted\" \\ \n"}"#, ctx)
        },
        ConformanceCase(
            "public.event-name-kept", .must, channelEvents,
            "Event names with colons, dots and dashes arrive unchanged."
        ) { ctx in
            let name = "App\\Events\\Conform:order.shipped-v1"
            try await ctx.deliveredToSubscriber(name, on: ctx.channel())
            return .pass(name)
        },
        ConformanceCase(
            "public.unsubscribe-stops-delivery", .must, subscription,
            "After pusher:unsubscribe the channel's events no longer arrive."
        ) { ctx in
            let gone = ctx.channel("", "gone"), kept = ctx.channel("", "kept")
            let c = try await ctx.connect()
            try await ctx.mustSubscribe(c, gone)
            try await ctx.mustSubscribe(c, kept)
            ctx.unsubscribe(c, gone)
            _ = await ctx.roundTrip(c)
            try await ctx.publish("conform-after", on: [gone])
            try await ctx.barrier([c], channel: kept)
            try check(
                ctx.received(c, "conform-after").isEmpty, "no event on \(gone) after unsubscribing", "it arrived", ctx)
            return .pass("no event after unsubscribing")
        },
        ConformanceCase(
            "public.resubscribe", .must, subscription,
            "A channel can be subscribed again after unsubscribing, and its events arrive again."
        ) { ctx in
            let channel = ctx.channel()
            let c = try await ctx.subscribed(channel)
            ctx.unsubscribe(c, channel)
            _ = await ctx.roundTrip(c)
            try await ctx.mustSubscribe(c, channel)
            try await ctx.mustDeliver("conform-again", on: channel, to: [c])
            return .pass("subscribed again, event delivered")
        },
        ConformanceCase(
            "public.duplicate-subscribe-delivers-once", .must, subscription,
            "Subscribing twice to one channel does not deliver its events twice."
        ) { ctx in
            let channel = ctx.channel(), marker = ctx.channel("", "marker")
            let c = try await ctx.subscribed(channel)
            _ = await ctx.subscribe(c, channel, wait: 1)
            try await ctx.mustSubscribe(c, marker)
            try await ctx.publish("conform-once", on: [channel])
            try await ctx.barrier([c], channel: marker)
            await ctx.settle(0.2)
            let count = ctx.received(c, "conform-once", channel: channel).count
            try check(count == 1, "the event once", "\(count) times", ctx)
            return .pass("delivered once")
        },
        ConformanceCase(
            "public.several-channels-one-connection", .must, subscription,
            "One connection subscribes to five channels and receives each one's events.", messages: 40
        ) { ctx in
            let c = try await ctx.connect()
            let channels = (1...5).map { ctx.channel("", "c\($0)") }
            for channel in channels { try await ctx.mustSubscribe(c, channel) }
            for channel in channels { try await ctx.publish("conform-each", on: [channel]) }
            for channel in channels { try await ctx.mustReceive(c, "conform-each", channel: channel) }
            return .pass("5 channels, 5 events")
        },
        ConformanceCase(
            "public.fan-out", .must, channelEvents,
            "An event reaches every subscriber of its channel (five connections).", messages: 50
        ) { ctx in
            let channel = ctx.channel()
            var connections: [ProbeConnection] = []
            for _ in 0..<5 { connections.append(try await ctx.subscribed(channel)) }
            try await ctx.mustDeliver("conform-fan", on: channel, to: connections)
            return .pass("5 of 5 subscribers")
        },
        ConformanceCase(
            "public.not-to-others", .must, channelEvents,
            "A connection that did not subscribe to a channel does not receive its events."
        ) { ctx in
            let channel = ctx.channel(), other = ctx.channel("", "other")
            let subscriber = try await ctx.subscribed(channel)
            let outsider = try await ctx.subscribed(other)
            try await ctx.mustDeliver("conform-private-talk", on: channel, to: [subscriber])
            try await ctx.barrier([outsider], channel: other)
            try check(
                ctx.received(outsider, "conform-private-talk").isEmpty, "nothing for the outsider", "it arrived", ctx)
            return .pass("only the subscriber")
        },
        ConformanceCase(
            "public.order-kept", .must, channelEvents,
            "Twenty events triggered one after another arrive in the order they were triggered.", messages: 80
        ) { ctx in
            let channel = ctx.channel()
            let c = try await ctx.subscribed(channel)
            for n in 1...20 {
                try await ctx.publish("conform-seq", on: [channel], data: "\(n)", what: "trigger \(n)")
            }
            try await ctx.barrier([c], channel: channel)
            let seen = ctx.received(c, "conform-seq", channel: channel).compactMap(\.dataText)
            try check(seen == (1...20).map(String.init), "1 to 20 in order", seen.joined(separator: ","), ctx)
            return .pass("20 in order")
        },
        ConformanceCase(
            "public.invalid-name-refused", .must, DocSource.channelNames,
            "A channel name with characters outside A-Z a-z 0-9 _ - = @ , . ; is refused."
        ) { ctx in
            try await ctx.mustRefuseSubscription(ctx.channel("", "bad name!"), "a channel name with a space and '!'")
        },
        ConformanceCase(
            "public.name-over-164-refused", .must, DocSource.channelNames,
            "A channel name longer than 164 characters is refused."
        ) { ctx in
            let name = ctx.channel() + String(repeating: "x", count: 165 - ctx.channel().count)
            return try await ctx.mustRefuseSubscription(name, "a 165-character channel name")
        },
        ConformanceCase(
            "public.name-of-164-accepted", .must, DocSource.channelNames,
            "A channel name of exactly 164 characters is accepted."
        ) { ctx in
            let c = try await ctx.connect()
            let name = ctx.channel() + String(repeating: "x", count: 164 - ctx.channel().count)
            try await ctx.mustSubscribe(c, name)
            return .pass("164 characters")
        },
        ConformanceCase(
            "public.name-punctuation-accepted", .must, DocSource.channelNames,
            "The punctuation Pusher allows in names (_ - = @ , . ;) is accepted."
        ) { ctx in
            let c = try await ctx.connect()
            let name = ctx.channel("", "a_b-c=d@e,f.g;h")
            try await ctx.mustSubscribe(c, name)
            try await ctx.mustDeliver("conform-punct", on: name, to: [c])
            return .pass(name)
        },
        ConformanceCase(
            "public.unsubscribe-unknown-harmless", .must, subscription,
            "Unsubscribing from a channel never subscribed leaves the connection working."
        ) { ctx in
            let c = try await ctx.connect()
            let from = c.socket.count
            ctx.unsubscribe(c, ctx.channel("", "never"))
            try check(
                await ctx.roundTrip(c), "pusher:pong after it", "received: \(c.socket.received(from: from))", ctx)
            try await ctx.mustSubscribe(c, ctx.channel())
            return .pass("still working")
        },
        ConformanceCase(
            "public.subscribe-without-channel-answered", .must, subscription,
            "pusher:subscribe without a channel gets pusher:error and the connection stays usable."
        ) { ctx in
            let c = try await ctx.connect()
            let from = c.socket.count
            c.socket.send(event: PusherEventName.subscribe, data: .object([:]))
            let frame = await ctx.refusal(on: c, from: from)
            guard let frame, frame.message?.event == PusherEventName.error else {
                throw failure(
                    "pusher:error for a pusher:subscribe without a channel, the connection kept",
                    frame.map { SubscribeAnswer.describe($0) } ?? "no answer within \(ctx.patience) s", ctx)
            }
            try check(await ctx.roundTrip(c), "the connection to keep working", "no pong", ctx)
            return .pass("answered \(SubscribeAnswer.describe(frame)), connection kept")
        },
    ]
}
