import PusherProtocol

/// User sign-in and what builds on it: events to users, watchlists, terminating a user's connections.
enum UserCases {
    /// A connection signed in as `user` and subscribed to its `#server-to-user-` channel, as pusher-js does after
    /// `pusher:signin_success`; fails the case when either does not succeed.
    static func signedIn(_ ctx: CaseContext, _ user: String, watchlist: [String]? = nil, node: Int = 0) async throws
        -> ProbeConnection
    {
        let c = try await ctx.connect(node: node)
        switch await ctx.signIn(c, user: user, watchlist: watchlist) {
        case .success:
            try await ctx.mustSubscribe(c, PusherEventName.serverToUserPrefix + user)
            return c
        case .refused(let how): throw failure("pusher:signin_success for \(user)", how, ctx)
        case .silent: throw failure("pusher:signin_success for \(user)", "no answer", ctx)
        }
    }

    static func refusedSignIn(_ answer: SignInAnswer, _ what: String, _ ctx: CaseContext) throws -> CaseOutcome {
        switch answer {
        case .refused(let how): return .pass("refused: \(how)")
        case .success: throw failure("\(what) to be refused", "pusher:signin_success", ctx)
        case .silent: throw failure("\(what) to be refused (pusher:error 4009)", "no answer", ctx)
        }
    }

    static func watchlistEvents(
        _ ctx: CaseContext, _ c: ProbeConnection, _ status: String, _ user: String, from: Int = 0
    )
        async -> Bool
    {
        await c.socket.waitFor(ctx.patience, from: from) { frame in
            guard let message = frame.message, message.event == PusherEventName.watchlistEvents else { return false }
            return WatchlistChange.changes(fromWatchlistData: message.dataJSON).contains {
                $0.status.rawValue == status && $0.userIDs.contains(user)
            }
        } != nil
    }

    /// The sign-in cases: optional, unsupported on a server without `pusher:signin`.
    static let signInCase = FeatureCases(.userSignIn, source: .userAuthentication)
    /// The cases of events to users: optional, unsupported on a server without `#server-to-user-` channels.
    static let toUserCase = FeatureCases(.serverToUser, source: .sendingToUsers)
    /// The watchlist cases: optional, unsupported on a server without watchlists.
    static let watchlistCase = FeatureCases(.watchlist, source: .watchlist)
    /// The cases of terminating a user's connections: optional, unsupported on a server without it.
    static let terminateCase = FeatureCases(.terminateConnections, source: .terminate)

    static let all: [ConformanceCase] = signIn + toUsers + watchlist + terminate

    static let signIn: [ConformanceCase] = [
        signInCase(
            "signin.succeeds", "pusher:signin with a valid signature gets pusher:signin_success with the user_data."
        ) { ctx in
            let c = try await ctx.connect()
            let user = ctx.user()
            let from = c.socket.count
            guard case .success(let message) = await ctx.signIn(c, user: user) else {
                throw failure("pusher:signin_success", "received: \(c.socket.received(from: from))", ctx)
            }
            let data = message.dataJSON?["user_data"]?.stringValue.flatMap(JSONValue.parseIfJSON)
            try check(data?["id"]?.stringValue == user, "user_data with id \(user)", message.dataText ?? "-", ctx)
            return .pass("signed in as \(user)")
        },
        signInCase("signin.refused-bad-signature", "A sign-in with a wrong signature is refused (pusher:error 4009).") {
            ctx in
            let c = try await ctx.connect()
            return try refusedSignIn(
                await ctx.signIn(c, user: ctx.user(), auth: "\(ctx.target.key):00"), "a wrong signature", ctx)
        },
        signInCase("signin.user-data-bound", "user_data other than what was signed is refused.") { ctx in
            let c = try await ctx.connect()
            let signed = ctx.userData(user: ctx.user("alice")), sent = ctx.userData(user: ctx.user("mallory"))
            let auth = UserAuthSignature.auth(
                key: ctx.target.key, secret: ctx.target.secret, socketID: c.socketID,
                userData: signed)
            return try refusedSignIn(
                await ctx.signIn(c, user: "", userData: sent, auth: auth), "another user's data", ctx)
        },
        signInCase("signin.user-data-needs-id", "user_data without an id is refused, even when signed.") { ctx in
            let c = try await ctx.connect()
            let data = #"{"user_info":{"name":"nobody"}}"#
            return try refusedSignIn(await ctx.signIn(c, user: "", userData: data), "user_data without id", ctx)
        },
    ]

    static let toUsers: [ConformanceCase] = [
        toUserCase(
            "server-to-user.delivered",
            "An event on #server-to-user-ID (sendToUser) reaches the user's signed-in connection."
        ) { ctx in
            let user = ctx.user()
            let c = try await signedIn(ctx, user)
            try ok(await ctx.sendToUser(user, event: "conform-to-user"), "sendToUser \(user)")
            let message = try await ctx.mustReceive(c, "conform-to-user")
            try check(
                message.channel == "#server-to-user-\(user)", "channel #server-to-user-\(user)",
                message.channel ?? "none", ctx)
            return .pass("delivered on \(message.channel!)")
        },
        toUserCase("server-to-user.every-connection", "An event to a user reaches each of the user's connections.") {
            ctx in
            let user = ctx.user()
            let a = try await signedIn(ctx, user), b = try await signedIn(ctx, user)
            try ok(await ctx.sendToUser(user, event: "conform-to-user"), "sendToUser \(user)")
            try await ctx.mustReceive(a, "conform-to-user")
            try await ctx.mustReceive(b, "conform-to-user")
            return .pass("both connections")
        },
        toUserCase("server-to-user.not-to-others", "An event to one user does not reach another user.") { ctx in
            let user = ctx.user("to"), other = ctx.user("other")
            let target = try await signedIn(ctx, user), bystander = try await signedIn(ctx, other)
            try ok(await ctx.sendToUser(user, event: "conform-to-user"), "the event")
            try await ctx.mustReceive(target, "conform-to-user")
            try ok(await ctx.sendToUser(other, event: "conform-marker"), "the marker")
            try await ctx.mustReceive(bystander, "conform-marker")
            try check(ctx.received(bystander, "conform-to-user").isEmpty, "nothing for \(other)", "it arrived", ctx)
            return .pass("only its user")
        },
        toUserCase(
            "server-to-user.others-cannot-subscribe",
            "Subscribing to another user's #server-to-user- channel is refused."
        ) { ctx in
            let c = try await signedIn(ctx, ctx.user("me"))
            return try refused(
                await ctx.subscribe(c, "#server-to-user-\(ctx.user("someone-else"))", auth: ""),
                "another user's channel", ctx)
        },
    ]

    static let watchlist: [ConformanceCase] = [
        watchlistCase(
            "watchlist.online", "A user whose watchlist names B gets watchlist_events online when B signs in."
        ) { ctx in
            let b = ctx.user("b")
            let watcher = try await signedIn(ctx, ctx.user("a"), watchlist: [b])
            let from = watcher.socket.count
            _ = try await signedIn(ctx, b)
            try check(
                await watchlistEvents(ctx, watcher, "online", b, from: from), "online [\(b)]",
                "received: \(watcher.socket.received(from: from))", ctx)
            return .pass("online")
        },
        watchlistCase("watchlist.offline", "The watcher gets watchlist_events offline when B's last connection leaves.")
        { ctx in
            let b = ctx.user("b")
            let watcher = try await signedIn(ctx, ctx.user("a"), watchlist: [b])
            let friend = try await signedIn(ctx, b)
            let from = watcher.socket.count
            friend.socket.close()
            let got = await watcher.socket.waitFor(10, from: from) { frame in
                guard let message = frame.message, message.event == PusherEventName.watchlistEvents else {
                    return false
                }
                return WatchlistChange.changes(fromWatchlistData: message.dataJSON).contains {
                    $0.status == .offline && $0.userIDs.contains(b)
                }
            }
            try check(got != nil, "offline [\(b)]", "received: \(watcher.socket.received(from: from))", ctx)
            return .pass("offline")
        },
        watchlistCase("watchlist.initial-state", "Signing in with B online in the watchlist reports B online at once.")
        { ctx in
            let b = ctx.user("b")
            _ = try await signedIn(ctx, b)
            let watcher = try await signedIn(ctx, ctx.user("a"), watchlist: [b])
            try check(
                await watchlistEvents(ctx, watcher, "online", b), "online [\(b)] after signing in",
                "received: \(watcher.socket.received(from: 1))", ctx)
            return .pass("online at sign-in")
        },
    ]

    static let terminate: [ConformanceCase] = [
        terminateCase(
            "terminate.closes-user-connections",
            "POST /users/ID/terminate_connections closes every connection of the user."
        ) { ctx in
            let user = ctx.user()
            let a = try await signedIn(ctx, user), b = try await signedIn(ctx, user)
            try ok(await ctx.terminateConnections(of: user), "terminate")
            for c in [a, b] {
                let end = await c.socket.end(within: ctx.patience)
                if case .open = end { try check(false, "the connection closed", "\(end)", ctx) }
            }
            return .pass("both closed")
        },
        terminateCase("terminate.others-unaffected", "Terminating one user's connections leaves other users connected.")
        { ctx in
            let user = ctx.user("gone"), other = ctx.user("stays")
            let victim = try await signedIn(ctx, user), bystander = try await signedIn(ctx, other)
            try ok(await ctx.terminateConnections(of: user), "terminate")
            _ = await victim.socket.end(within: ctx.patience)
            try check(await ctx.roundTrip(bystander), "the other user's connection still answering", "no pong", ctx)
            return .pass("other users kept")
        },
    ]
}
