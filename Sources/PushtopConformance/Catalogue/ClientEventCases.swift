import PusherProtocol

/// Client events: private and presence only, `client-` names, not echoed, `user_id` on presence, the rate limit.
enum ClientEventCases {
    static let protocolSection = DocSource.protocol7("Channel client events", anchor: "channel-client-events")

    /// Two connections on a private (or presence) channel, both subscribed.
    static func pair(_ ctx: CaseContext, kind: String = "private-", sender user: String? = nil) async throws
        -> (channel: String, sender: ProbeConnection, receiver: ProbeConnection)
    {
        let channel = ctx.channel(kind)
        let receiver = try await ctx.subscribed(channel)
        let sender = try await ctx.subscribed(channel, user: user)
        return (channel, sender, receiver)
    }

    /// Sends from `sender`, waits until the server has handled it, then checks that `receiver` got nothing named
    /// `event`.
    static func notDelivered(
        _ ctx: CaseContext, _ sender: ProbeConnection, _ receiver: ProbeConnection,
        event: String, barrierChannel: String
    ) async throws -> ProbeFrame? {
        let from = sender.socket.count
        _ = await ctx.roundTrip(sender)
        try await ctx.barrier([receiver], channel: barrierChannel)
        await ctx.settle(0.3)
        try check(ctx.received(receiver, event).isEmpty, "\(event) not delivered", "it was delivered", ctx)
        return sender.socket.frames.dropFirst(from).first { $0.message?.event == PusherEventName.error }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase(
            "client-events.delivered-on-private", .must, protocolSection,
            "A client event on a private channel reaches the channel's other subscribers."
        ) { ctx in
            let (channel, sender, receiver) = try await pair(ctx)
            ctx.sendClientEvent(sender, channel, event: "client-conform", data: ["n": 1])
            let message = try await ctx.mustReceive(receiver, "client-conform", channel: channel)
            return .pass(message.dataText ?? "")
        },
        ConformanceCase(
            "client-events.data-verbatim", .must, protocolSection,
            "A client event's data arrives as the same JSON value."
        ) { ctx in
            let (channel, sender, receiver) = try await pair(ctx)
            let data: JSONValue = ["text": "héllo 🎉", "list": [1, 2.5, nil, true], "nested": ["a": "b"]]
            ctx.sendClientEvent(sender, channel, event: "client-conform", data: data)
            let message = try await ctx.mustReceive(receiver, "client-conform", channel: channel)
            let got = message.dataJSON
            try check(got == data, data.jsonString, message.dataText ?? "-", ctx)
            return .pass("unchanged")
        },
        ConformanceCase(
            "client-events.not-echoed", .must, protocolSection,
            "A client event is not sent back to the connection that sent it."
        ) { ctx in
            let (channel, sender, receiver) = try await pair(ctx)
            let from = sender.socket.count
            ctx.sendClientEvent(sender, channel, event: "client-conform-echo", data: [:])
            try await ctx.mustReceive(receiver, "client-conform-echo", channel: channel)
            _ = await ctx.roundTrip(sender)
            try await ctx.barrier([sender], channel: channel)
            let echoed = sender.socket.frames.dropFirst(from).contains {
                $0.direction == .received && $0.message?.event == "client-conform-echo"
            }
            try check(!echoed, "no echo to the sender", "the sender received its own client event", ctx)
            return .pass("not echoed")
        },
        ConformanceCase(
            "client-events.presence-user-id", .must, protocolSection,
            "A client event on a presence channel carries the sender's user_id."
        ) { ctx in
            let user = ctx.user("sender")
            let (channel, sender, receiver) = try await pair(ctx, kind: "presence-", sender: user)
            ctx.sendClientEvent(sender, channel, event: "client-conform", data: [:])
            let message = try await ctx.mustReceive(receiver, "client-conform", channel: channel)
            try check(message.userID == user, "user_id \(user)", message.userID ?? "no user_id", ctx)
            return .pass("user_id \(user)")
        },
        ConformanceCase(
            "client-events.refused-on-public", .must, protocolSection,
            "Client events on public channels are not delivered."
        ) { ctx in
            let channel = ctx.channel()
            let receiver = try await ctx.subscribed(channel)
            let sender = try await ctx.subscribed(channel)
            ctx.sendClientEvent(sender, channel, event: "client-conform-public", data: [:])
            let error = try await notDelivered(
                ctx, sender, receiver, event: "client-conform-public", barrierChannel: channel)
            return .pass(error.map { "refused: \(SubscribeAnswer.describe($0))" } ?? "dropped without pusher:error")
        },
        ConformanceCase(
            "client-events.need-client-prefix", .must, protocolSection,
            "An event from a client whose name does not start with client- is not delivered."
        ) { ctx in
            let (channel, sender, receiver) = try await pair(ctx)
            ctx.sendClientEvent(sender, channel, event: "conform-not-client", data: [:])
            let error = try await notDelivered(
                ctx, sender, receiver, event: "conform-not-client", barrierChannel: channel)
            return .pass(error.map { "refused: \(SubscribeAnswer.describe($0))" } ?? "ignored")
        },
        ConformanceCase(
            "client-events.need-subscription", .must, protocolSection,
            "A client event on a channel the sender has not subscribed to is not delivered."
        ) { ctx in
            let channel = ctx.channel("private-")
            let receiver = try await ctx.subscribed(channel)
            let sender = try await ctx.connect()
            ctx.sendClientEvent(sender, channel, event: "client-conform-outsider", data: [:])
            let error = try await notDelivered(
                ctx, sender, receiver, event: "client-conform-outsider", barrierChannel: channel)
            return .pass(error.map { "refused: \(SubscribeAnswer.describe($0))" } ?? "ignored")
        },
        ConformanceCase(
            "client-events.not-to-other-channels", .must, protocolSection,
            "A client event reaches only the subscribers of its channel."
        ) { ctx in
            let (channel, sender, _) = try await pair(ctx)
            let other = ctx.channel("private-", "other")
            let outsider = try await ctx.subscribed(other)
            ctx.sendClientEvent(sender, channel, event: "client-conform-scoped", data: [:])
            _ = try await notDelivered(ctx, sender, outsider, event: "client-conform-scoped", barrierChannel: other)
            return .pass("only its channel")
        },
        ConformanceCase(
            "client-events.rate-limit-4301", .must,
            DocSource.protocol7("Error codes: 4300-4399", anchor: "error-codes"),
            "More than 10 client events a second from one connection get pusher:error 4301.", messages: 60
        ) { ctx in
            let (channel, sender, _) = try await pair(ctx)
            let from = sender.socket.count
            for n in 0..<30 {
                ctx.sendClientEvent(sender, channel, event: "client-conform-flood", data: ["n": .number(Double(n))])
            }
            let frame = await ctx.refusal(on: sender, from: from)
            guard let frame, errorCode(frame) == 4301 else {
                throw failure(
                    "pusher:error 4301 (client event rejected due to rate limit) for 30 events at once",
                    frame.map(SubscribeAnswer.describe) ?? "no error: every event accepted", ctx)
            }
            return .pass(SubscribeAnswer.describe(frame))
        },
        ConformanceCase(
            "client-events.over-10kb-refused", .should, DocSource.limits,
            "A client event with more than 10 KB of data is not delivered."
        ) { ctx in
            let (channel, sender, receiver) = try await pair(ctx)
            ctx.sendClientEvent(
                sender, channel, event: "client-conform-big", data: .string(String(repeating: "x", count: 11_000)))
            let error = try await notDelivered(
                ctx, sender, receiver, event: "client-conform-big", barrierChannel: channel)
            return .pass(error.map { "refused: \(SubscribeAnswer.describe($0))" } ?? "dropped")
        },
    ]
}
