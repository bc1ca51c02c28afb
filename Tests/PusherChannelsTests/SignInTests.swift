import Foundation
import Logging
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// `signIn()` against the embedded server over loopback WebSockets: sign-in, events to the user, watchlists,
/// signing in again after a reconnect, and failures.
@Suite(.timeLimit(.minutes(1))) struct SignInTests {
    static func api(_ server: EmbeddedServer) -> PusherAPIClient {
        PusherAPIClient(
            configuration: PusherAPIConfiguration(
                appID: server.configuration.app.id, key: server.configuration.app.key,
                secret: server.configuration.app.secret, host: "127.0.0.1", port: server.port))
    }

    static func makeClient(
        _ server: EmbeddedServer, userAuthenticator: (any UserAuthenticator)?,
        policy: ReconnectPolicy = .init(minDelay: 0.05, maxDelay: 0.2, jitter: 0)
    ) -> PusherClient {
        PusherClient(
            options: PusherClientOptions(
                key: server.configuration.app.key, host: "127.0.0.1", port: server.port,
                connection: ConnectionConfiguration(useTLS: false, reconnect: policy),
                authorizer: EndpointAuthorizer(url: server.authEndpointURL!),
                userAuthenticator: userAuthenticator))
    }

    static func secretSigner(_ server: EmbeddedServer, _ id: String, watchlist: [String] = [])
        -> SecretUserAuthenticator
    {
        SecretUserAuthenticator(
            key: server.configuration.app.key, secret: server.configuration.app.secret,
            userID: id, watchlist: watchlist)
    }

    @Test func signsInReceivesUserEventsAndWatchlistAndSignsInAgainAfterReconnecting() async throws {
        try await withServer(logLevel: .critical) { server in
            let endpoint = EndpointUserAuthenticator(
                url: server.userAuthEndpointURL!,
                parameters: [("user_id", "alice"), ("user_info", #"{"name":"Alice"}"#), ("watchlist", "bob")])
            let alice = Self.makeClient(server, userAuthenticator: endpoint)
            let recorder = EventRecorder(alice)
            try await alice.subscribe("presence-room")
            try await alice.signIn()
            await alice.connect()
            let signedIn = try await recorder.wait("signed in") { if case .signedIn = $0 { true } else { false } }
            let user = try #require(
                { () -> SignedInUser? in if case .signedIn(let user) = signedIn { user } else { nil } }())
            #expect(user.id == "alice")
            #expect(user.watchlist == ["bob"])
            #expect(user.userInfo?["name"]?.stringValue == "Alice")
            try await recorder.wait("subscribed") { $0.isSubscribed("presence-room") }
            #expect(await alice.signedInUser?.id == "alice")

            // bob comes online: alice's watchlist says so.
            let bob = Self.makeClient(server, userAuthenticator: Self.secretSigner(server, "bob"))
            try await bob.signIn()
            await bob.connect()
            try await recorder.wait("bob online") {
                $0 == .watchlist(WatchlistChange(status: .online, userIDs: ["bob"]))
            }
            #expect(await alice.onlineWatchedUsers == ["bob"])

            // An event sent to alice arrives as a user event, not a channel event.
            try await waitUntil("alice's user channel") {
                await server.hub.channelSummary("#server-to-user-alice").subscriptionCount == 1
            }
            _ = try await Self.api(server).sendToUser("alice", event: "invoice-paid", data: #"{"amount":42}"#)
            let received = try await recorder.wait("user event") { if case .userEvent = $0 { true } else { false } }
            #expect(
                received
                    == .userEvent(
                        UserEvent(
                            userID: "alice", name: "invoice-paid", dataText: #"{"amount":42}"#,
                            receivedAt: { if case .userEvent(let e) = received { e.receivedAt } else { 0 } }())))
            #expect(recorder.channelEvents.allSatisfy { !$0.channel.hasPrefix("#") })

            // After a reconnect alice is signed in again before her channels are subscribed again.
            let before = recorder.all.count
            await alice.disconnect()
            await alice.connect()
            try await recorder.waitForState(.connected, occurrence: 2)
            try await waitUntil("signed in and subscribed again") {
                let after = recorder.all.dropFirst(before)
                return after.contains { if case .signedIn = $0 { true } else { false } }
                    && after.contains { $0.isSubscribed("presence-room") }
            }
            let after = Array(recorder.all.dropFirst(before))
            let signedInAt = try #require(after.firstIndex { if case .signedIn = $0 { true } else { false } })
            let subscribedAt = try #require(after.firstIndex { $0.isSubscribed("presence-room") })
            #expect(signedInAt < subscribedAt)
            #expect(after.contains(.signedOut(userID: "alice")))
            try await recorder.wait("bob online again") { _ in
                recorder.all.dropFirst(before).contains(.watchlist(WatchlistChange(status: .online, userIDs: ["bob"])))
            }
            try await waitUntil("alice's user channel again") {
                await server.hub.channelSummary("#server-to-user-alice").subscriptionCount == 1
            }
            _ = try await Self.api(server).sendToUser("alice", event: "second", data: "{}")
            try await recorder.wait("second user event") {
                if case .userEvent(let e) = $0 { e.name == "second" } else { false }
            }

            // bob leaves: offline.
            await bob.shutdown()
            try await recorder.wait("bob offline") {
                $0 == .watchlist(WatchlistChange(status: .offline, userIDs: ["bob"]))
            }
            #expect(await alice.onlineWatchedUsers.isEmpty)
            await alice.shutdown()
        }
    }

    @Test func aRefusingEndpointIsASignInErrorAndChannelsStillSubscribe() async throws {
        try await withServer(logLevel: .critical) { server in
            let endpoint = ScriptedAuthEndpoint()
            try await endpoint.start()
            defer { endpoint.stop() }
            endpoint.respond { _ in .init(status: 403, body: "not you") }
            let client = Self.makeClient(server, userAuthenticator: EndpointUserAuthenticator(url: endpoint.url))
            let recorder = EventRecorder(client)
            try await client.subscribe("news")
            try await client.signIn()
            await client.connect()
            let failed = try await recorder.wait("sign-in error") { if case .signInFailed = $0 { true } else { false } }
            #expect(failed == .signInFailed(status: 403, message: "auth endpoint answered HTTP 403: not you"))
            try await recorder.wait("news subscribed") { $0.isSubscribed("news") }
            #expect(endpoint.requests.first?.form["socket_id"] == (await client.socketID))
            #expect(await client.signedInUser == nil)
            await client.shutdown()
        }
    }

    @Test func aSignatureTheServerRefusesIsReportedWithItsReason() async throws {
        try await withServer(logLevel: .critical) { server in
            let forged = SecretUserAuthenticator(
                key: server.configuration.app.key, secret: "not-the-secret",
                userID: "eve")
            let client = Self.makeClient(server, userAuthenticator: forged, policy: .init(kind: .none))
            let recorder = EventRecorder(client)
            try await client.signIn()
            await client.connect()
            let failed = try await recorder.wait("sign-in error") { if case .signInFailed = $0 { true } else { false } }
            let message = try #require(
                { () -> String? in if case .signInFailed(_, let message) = failed { message } else { nil } }())
            #expect(message.contains("4009"))
            #expect(message.contains("invalid signature"))
            try await recorder.waitForState(.failed)
            await client.shutdown()
        }
    }

    @Test func signingInNeedsAUserAuthenticator() async throws {
        let client = PusherClient(options: PusherClientOptions(key: "k"))
        await #expect(throws: ClientError.noUserAuthenticator) { try await client.signIn() }
    }

    @Test func signingOutStopsUserEvents() async throws {
        try await withServer(logLevel: .critical) { server in
            let client = Self.makeClient(server, userAuthenticator: Self.secretSigner(server, "olga"))
            let recorder = EventRecorder(client)
            try await client.signIn()
            await client.connect()
            try await recorder.wait("signed in") { if case .signedIn = $0 { true } else { false } }
            try await waitUntil("olga's user channel") {
                await server.hub.channelSummary("#server-to-user-olga").subscriptionCount == 1
            }
            await client.signOut()
            try await recorder.wait("signed out") { $0 == .signedOut(userID: "olga") }
            try await waitUntil("olga's user channel left") {
                await server.hub.channelSummary("#server-to-user-olga").subscriptionCount == 0
            }
            #expect(await client.signedInUser == nil)
            await client.shutdown()
        }
    }

    @Test func channelsWaitForTheSignInAndGoAheadWhenAServerWithoutSignInRefusesIt() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let client = PusherClient(
            options: PusherClientOptions(
                key: "test-key", host: "127.0.0.1", port: server.port,
                connection: ConnectionConfiguration(useTLS: false),
                userAuthenticator: SecretUserAuthenticator(key: "test-key", secret: "s", userID: "u1")))
        let recorder = EventRecorder(client)
        try await client.subscribe("news")
        try await client.signIn()
        await client.connect()
        let connection = try await server.connection(1)
        try await waitUntil("pusher:signin") { connection.frames.contains { $0.contains(PusherEventName.signin) } }
        // The sign-in goes first: no subscription until it is answered.
        #expect(!connection.frames.contains { $0.contains(PusherEventName.subscribe) })
        connection.send(#"{"event":"pusher:error","data":{"code":null,"message":"Unsupported event pusher:signin"}}"#)
        let failed = try await recorder.wait("sign-in error") { if case .signInFailed = $0 { true } else { false } }
        let message = try #require(
            { () -> String? in if case .signInFailed(_, let message) = failed { message } else { nil } }())
        #expect(message.contains("Unsupported event pusher:signin"))
        try await recorder.wait("news subscribed") { $0.isSubscribed("news") }
        await client.shutdown()
    }
}
