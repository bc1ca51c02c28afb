import PusherProtocol

/// Several nodes of one app: one app however many nodes serve it.
enum ClusterCases {
    static let source = DocSource.clusterDocs

    static func clusterCase(
        _ id: String, _ title: String, feature: ServerFeature? = nil, needs: Set<CaseRequirement> = [],
        body: @escaping @Sendable (CaseContext) async throws -> CaseOutcome
    ) -> ConformanceCase {
        ConformanceCase(id, .should, source, title, needs: needs.union([.cluster]), feature: feature, body: body)
    }

    static let all: [ConformanceCase] = [
        clusterCase("cluster.publish-anywhere", "An event published through node B reaches a subscriber on node A.") {
            ctx in
            try await ctx.deliveredToSubscriber(
                "conform-cross", on: ctx.channel(), subscriberNode: 0, node: 1, what: "the trigger on B")
            return .pass("delivered across nodes")
        },
        clusterCase("cluster.one-roster", "A member on node A is in the roster of a subscriber on node B.") { ctx in
            let channel = ctx.channel("presence-")
            let user = ctx.user("on-a")
            _ = try await ctx.subscribed(channel, node: 0, user: user)
            let frame = try await ctx.subscriptionSucceeded(channel, node: 1)
            let ids = PresenceCases.presence(frame)?["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
            try check(ids.contains(user), "\(user) in B's roster", frame.text ?? "-", ctx)
            return .pass("roster \(ids)")
        },
        clusterCase("cluster.member-added-across", "A member joining on node A is announced to members on node B.") {
            ctx in
            let watch = try await PresenceWatch(ctx, watcherNode: 1, node: 0)
            try await watch.mustAnnounce(ctx, PusherEventName.memberAdded, expected: "member_added \(watch.user)")
            return .pass("announced on B")
        },
        clusterCase("cluster.member-removed-across", "A member leaving node A is removed for members on node B.") {
            ctx in
            let watch = try await PresenceWatch(ctx, watcherNode: 1, node: 0)
            try await ctx.mustReceive(watch.watcher, PusherEventName.memberAdded, channel: watch.channel)
            ctx.unsubscribe(watch.member, watch.channel)
            try await ctx.mustReceive(watch.watcher, PusherEventName.memberRemoved, channel: watch.channel)
            return .pass("removed on B")
        },
        clusterCase("cluster.member-once-per-user-across", "A user connected to both nodes is announced once.") { ctx in
            let watch = try await MarkedPresenceWatch(ctx, node: 0)
            let channel = watch.channel, marker = watch.marker, watcher = watch.watcher
            let user = ctx.user()
            _ = try await ctx.subscribed(channel, node: 0, user: user)
            _ = try await ctx.subscribed(channel, node: 1, user: user)
            let added: @Sendable (ProbeFrame) -> Bool = { frame in
                guard frame.direction == .received, let message = frame.message else { return false }
                return message.event == PusherEventName.memberAdded && message.channel == channel
                    && message.dataJSON?["user_id"]?.stringValue == user
            }
            guard let (first, frame) = await watcher.socket.waitIndexed(ctx.patience, added) else {
                throw failure("member_added for \(user)", "none within \(ctx.patience) s", ctx)
            }
            // What node B said after the second connection reaches A by then; a late duplicate within the wait too.
            try await ctx.barrier([watcher], channel: marker, node: 1)
            if let again = await watcher.socket.waitFor(ctx.patience, from: first + 1, added) {
                throw failure(
                    "one member_added for a user connected to both nodes",
                    "a second one \(String(format: "%.1f", again.at - frame.at)) s after the first", ctx)
            }
            return .pass("once (waited \(ctx.patience) s for a late duplicate)")
        },
        clusterCase("cluster.counts-from-any-node", "Node B's API counts the subscribers on node A.") { ctx in
            let channel = ctx.channel()
            _ = try await ctx.subscribed(channel, node: 0)
            _ = try await ctx.subscribed(channel, node: 1)
            let answer = await HTTPAPICases.poll(
                ctx, "/channels/\(channel)", query: ["info": "subscription_count"], node: 1
            ) {
                $0.json?["subscription_count"]?.intValue == 2
            }
            try check(
                answer.json?["subscription_count"]?.intValue == 2, "subscription_count 2 from B", answer.description,
                ctx)
            return .pass(answer.body)
        },
        clusterCase("cluster.users-from-any-node", "Node B's API lists the users on node A.") { ctx in
            let channel = ctx.channel("presence-")
            let user = ctx.user()
            _ = try await ctx.subscribed(channel, node: 0, user: user)
            let answer = try await HTTPAPICases.mustPoll(
                ctx, "/channels/\(channel)/users", node: 1, until: "\(user) in B's users"
            ) { ($0.json?["users"]?.arrayValue ?? []).contains { $0["id"]?.stringValue == user } }
            return .pass(answer.body)
        },
        clusterCase("cluster.channels-from-any-node", "Node B's GET /channels lists a channel occupied on node A.") {
            ctx in
            let channel = ctx.channel()
            _ = try await ctx.subscribed(channel, node: 0)
            _ = try await HTTPAPICases.mustPoll(
                ctx, "/channels", query: ["filter_by_prefix": ctx.prefix], node: 1, until: "\(channel) listed by B"
            ) { $0.json?["channels"]?[channel] != nil }
            return .pass("listed")
        },
        clusterCase("cluster.client-event-across", "A client event sent on node A reaches a subscriber on node B.") {
            ctx in
            let channel = ctx.channel("private-")
            let receiver = try await ctx.subscribed(channel, node: 1)
            let sender = try await ctx.subscribed(channel, node: 0)
            ctx.sendClientEvent(sender, channel, event: "client-conform-cross", data: [:])
            try await ctx.mustReceive(receiver, "client-conform-cross", channel: channel)
            return .pass("delivered across nodes")
        },
        clusterCase(
            "cluster.socket-id-excluded-across", "socket_id excludes a connection on node A from a publish through B."
        ) { ctx in
            let channel = ctx.channel()
            let excluded = try await ctx.subscribed(channel, node: 0)
            let other = try await ctx.subscribed(channel, node: 0)
            try ok(
                await ctx.trigger(
                    node: 1, channels: [channel], event: "conform-excl", data: "{}",
                    socketID: excluded.socketID), "the trigger on B")
            try await ctx.mustReceive(other, "conform-excl", channel: channel)
            try await ctx.barrier([excluded], channel: channel, node: 1)
            try check(
                ctx.received(excluded, "conform-excl").isEmpty, "nothing for the excluded socket", "it arrived", ctx)
            return .pass("excluded across nodes")
        },
        clusterCase(
            "cluster.server-to-user-across", "An event to a user signed in on node A, sent through B, arrives.",
            feature: .serverToUser
        ) { ctx in
            let user = ctx.user()
            let c = try await UserCases.signedIn(ctx, user, node: 0)
            try ok(await ctx.sendToUser(node: 1, user, event: "conform-to-user"), "POST on B")
            try await ctx.mustReceive(c, "conform-to-user")
            return .pass("delivered")
        },
        clusterCase(
            "cluster.webhook-once", "A channel occupied on two nodes sends one channel_occupied.",
            feature: .webhooks, needs: [.webhooks]
        ) { ctx in
            let channel = ctx.channel()
            _ = try await ctx.subscribed(channel, node: 0)
            _ = try await ctx.subscribed(channel, node: 1)
            _ = try await WebhookCases.mustWait(ctx, "channel_occupied", channel)
            await ctx.settle(1.5)
            let count = WebhookCases.accepted(ctx, "channel_occupied", channel).count
            try check(count == 1, "one channel_occupied for the cluster", "\(count) (one per node?)")
            return .pass("once")
        },
    ]
}
