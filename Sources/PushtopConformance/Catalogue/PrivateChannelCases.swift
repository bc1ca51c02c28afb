import PusherProtocol

/// Private channels: the auth signature and each way it can be wrong.
enum PrivateChannelCases {
    static let auth = DocSource(
        page: "Authentication and authorization signatures", section: "Private channel",
        url: "https://pusher.com/docs/channels/library_auth_reference/auth-signatures/#private-channel")
    static let subscribe = DocSource.protocol7("pusher:subscribe (private channels)", anchor: "pusher-subscribe")

    static func refusedAuth(_ ctx: CaseContext, _ what: String, _ auth: @escaping (ProbeConnection, String) -> String)
        async throws -> CaseOutcome
    {
        let channel = ctx.channel("private-")
        return try await ctx.mustRefuseSubscription(channel, auth: { auth($0, channel) }, what)
    }

    static let all: [ConformanceCase] = [
        ConformanceCase(
            "private.subscribe", .must, auth,
            "A private channel with a valid auth (key:HMAC-SHA256 of socket_id:channel) is subscribed."
        ) { ctx in
            try await ctx.subscriptionSucceeded(ctx.channel("private-"))
            return .pass("subscribed")
        },
        ConformanceCase(
            "private.events-delivered", .must, subscribe,
            "Events triggered on a private channel reach its subscribers."
        ) { ctx in
            try await ctx.deliveredToSubscriber("conform-private", on: ctx.channel("private-"))
            return .pass("delivered")
        },
        ConformanceCase(
            "private.refused-without-auth", .must, subscribe,
            "A private subscription without auth is refused."
        ) { ctx in
            let channel = ctx.channel("private-")
            return try await ctx.mustRefuseSubscription(
                channel, sending: { _ in ["channel": .string(channel)] }, "no auth")
        },
        ConformanceCase(
            "private.refused-bad-signature", .must, auth,
            "A private subscription whose signature is wrong is refused."
        ) { ctx in
            try await refusedAuth(ctx, "a wrong signature") { c, channel in
                let good = ctx.auth(c, channel)
                return String(good.dropLast()) + (good.last == "0" ? "1" : "0")
            }
        },
        ConformanceCase(
            "private.refused-other-socket", .must, auth,
            "An auth signed for another socket_id is refused."
        ) { ctx in
            try await refusedAuth(ctx, "a signature for another socket") { _, channel in
                ChannelAuthSignature.auth(
                    key: ctx.target.key, secret: ctx.target.secret, socketID: "1234.5678",
                    channel: channel)
            }
        },
        ConformanceCase(
            "private.refused-other-channel", .must, auth,
            "An auth signed for another channel is refused."
        ) { ctx in
            try await refusedAuth(ctx, "a signature for another channel") { c, _ in
                ctx.auth(c, ctx.channel("private-", "elsewhere"))
            }
        },
        ConformanceCase(
            "private.refused-other-key", .must, auth,
            "An auth whose key part names another app is refused."
        ) { ctx in
            try await refusedAuth(ctx, "another app's key in auth") { c, channel in
                "conform-other-key:" + ctx.auth(c, channel).split(separator: ":").last!
            }
        },
        ConformanceCase(
            "private.refused-wrong-secret", .must, auth,
            "An auth signed with another secret is refused."
        ) { ctx in
            try await refusedAuth(ctx, "a signature made with another secret") { c, channel in
                ChannelAuthSignature.auth(
                    key: ctx.target.key, secret: ctx.target.secret + "x", socketID: c.socketID,
                    channel: channel)
            }
        },
        ConformanceCase(
            "private.refused-malformed-auth", .must, auth,
            "An auth that is not key:signature is refused."
        ) { ctx in
            try await refusedAuth(ctx, "an auth without 'key:'") { _, _ in "not-a-valid-auth-value" }
        },
        ConformanceCase(
            "private.refusal-keeps-connection", .must, subscribe,
            "After a refused subscription the connection still works (other channels subscribe)."
        ) { ctx in
            let c = try await ctx.connect()
            let channel = ctx.channel("private-")
            _ = await ctx.subscribe(c, channel, auth: "\(ctx.target.key):0000")
            let answer = await ctx.subscribe(c, ctx.channel("", "after"))
            guard case .succeeded = answer else {
                throw failure(
                    "the connection to stay usable after a refusal",
                    answer.refusal ?? "no answer to the next subscription", ctx)
            }
            return .pass("next subscription succeeded")
        },
    ]
}
