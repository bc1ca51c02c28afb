import Foundation
import PushtopTestSupport
import Synchronization
import Testing

@testable import PusherChannels

/// Private, presence and encrypted channels against the scripted server and a real HTTP auth endpoint.
@Suite(.timeLimit(.minutes(1))) struct ChannelAuthorizationTests {
    let key = "test-key"
    let secret = "test-secret"

    func makeClient(_ server: ScriptedPusherServer, authorizer: (any Authorizer)?) -> PusherClient {
        PusherClient(
            options: PusherClientOptions(
                key: key, host: "127.0.0.1", port: server.port,
                connection: ConnectionConfiguration(
                    useTLS: false, reconnect: .init(minDelay: 0.05, maxDelay: 0.1, jitter: 0)),
                authorizer: authorizer))
    }

    /// Subscribes to `channel` through `authorizer` on a scripted server and returns the subscription error.
    func subscriptionError(_ channel: String, authorizer: (any Authorizer)?) async throws -> ClientEvent {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let client = makeClient(server, authorizer: authorizer)
        let recorder = EventRecorder(client)
        try await client.subscribe(channel)
        await client.connect()
        return try await recorder.wait { if case .subscriptionError = $0 { return true } else { return false } }
    }

    /// A scripted server and a client (no authorizer) subscribed to `room`, with its recorder.
    func subscribedToRoom() async throws -> (
        server: ScriptedPusherServer, client: PusherClient, recorder: EventRecorder
    ) {
        let server = try await ScriptedPusherServer.start()
        let client = makeClient(server, authorizer: nil)
        let recorder = EventRecorder(client)
        try await client.subscribe("room")
        await client.connect()
        do {
            try await recorder.wait { $0.isSubscribed("room") }
        } catch {
            server.stop()
            throw error
        }
        return (server, client, recorder)
    }

    /// The message of a subscription error.
    func message(of error: ClientEvent) throws -> String {
        try #require(
            { () -> String? in if case .subscriptionError(_, _, let message) = error { message } else { nil } }())
    }

    @Test func endpointAuthorizerPostsTheFormWithExtraHeadersAndParams() async throws {
        let endpoint = ScriptedAuthEndpoint()
        try await endpoint.start()
        defer { endpoint.stop() }
        let key = self.key, secret = self.secret
        endpoint.respond { form in
            let auth = ChannelAuthSignature.auth(
                key: key, secret: secret, socketID: form["socket_id"] ?? "",
                channel: form["channel_name"] ?? "")
            return .init(body: #"{"auth":"\#(auth)"}"#)
        }
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let authorizer = EndpointAuthorizer(
            url: endpoint.url, headers: [("X-CSRF-Token", "abc")],
            parameters: [("team", "a b&c")])
        let client = makeClient(server, authorizer: authorizer)
        let recorder = EventRecorder(client)
        try await client.subscribe("private-orders")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("private-orders") }
        let request = try #require(endpoint.requests.first)
        #expect(request.form["channel_name"] == "private-orders")
        #expect(request.form["socket_id"] == "1.1001")
        #expect(request.form["team"] == "a b&c")
        #expect(request.headers["x-csrf-token"] == "abc")
        let subscribe = try await server.connection(1).waitForMessage { $0.event == "pusher:subscribe" }
        #expect(
            ChannelAuthSignature.verify(
                auth: subscribe.dataJSON?["auth"]?.stringValue ?? "", key: key, secret: secret,
                socketID: "1.1001", channel: "private-orders"))
    }

    @Test func authFailureIsASubscriptionErrorAndOtherChannelsCarryOn() async throws {
        let endpoint = ScriptedAuthEndpoint()
        try await endpoint.start()
        defer { endpoint.stop() }
        endpoint.respond { form in
            form["channel_name"] == "private-bad"
                ? .init(status: 403, body: #"{"error":"forbidden"}"#) : .init(body: #"not json"#)
        }
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let client = makeClient(server, authorizer: EndpointAuthorizer(url: endpoint.url))
        let recorder = EventRecorder(client)
        try await client.subscribe("private-bad")
        try await client.subscribe("private-garbled")
        try await client.subscribe("public")
        await client.connect()
        let bad = try await recorder.wait {
            if case .subscriptionError(let c, _, _) = $0 { return c == "private-bad" } else { return false }
        }
        #expect(
            bad
                == .subscriptionError(
                    channel: "private-bad", status: 403,
                    message: #"auth endpoint answered HTTP 403: {"error":"forbidden"}"#))
        let garbled = try await recorder.wait {
            if case .subscriptionError(let c, _, _) = $0 { return c == "private-garbled" } else { return false }
        }
        if case .subscriptionError(_, let status, let message) = garbled {
            #expect(status == nil)
            #expect(message.contains("malformed"))
        }
        try await recorder.wait { $0.isSubscribed("public") }
        #expect(await client.state == .connected)
    }

    @Test func deadAuthEndpointTimesOut() async throws {
        let endpoint = ScriptedAuthEndpoint()
        try await endpoint.start()
        defer { endpoint.stop() }
        endpoint.respond { _ in .init(body: "{}", delay: 3) }
        let error = try await subscriptionError(
            "private-slow", authorizer: EndpointAuthorizer(url: endpoint.url, timeout: 0.3))
        #expect(
            error
                == .subscriptionError(
                    channel: "private-slow", status: nil,
                    message: "auth endpoint did not answer within 0.3 s"))
    }

    @Test func unreachableAuthEndpointIsReported() async throws {
        let error = try await subscriptionError(
            "private-x",
            authorizer: EndpointAuthorizer(url: "http://127.0.0.1:9/pusher/auth", timeout: 2))
        #expect(try message(of: error).contains("unreachable"))
    }

    @Test func privateChannelWithoutAuthorizerSaysWhatToDo() async throws {
        let error = try await subscriptionError("private-x", authorizer: nil)
        #expect(try message(of: error).contains("--auth-endpoint"))
    }

    @Test func presenceRosterIsRightAcrossReconnects() async throws {
        var behavior = ScriptedPusherServer.Behavior()
        behavior.presenceMembers = [PresenceMember(userID: "ann", userInfo: ["name": "Ann"])]
        let server = try await ScriptedPusherServer.start(behavior)
        defer { server.stop() }
        let client = makeClient(
            server, authorizer: SecretAuthorizer(key: key, secret: secret, userID: "me", userInfo: ["name": "Me"]))
        let recorder = EventRecorder(client)
        try await client.subscribe("presence-room")
        await client.connect()
        let subscribed = try await recorder.wait { $0.isSubscribed("presence-room") }
        #expect(
            subscribed
                == .subscribed(
                    channel: "presence-room",
                    presence: PresenceSnapshot(
                        me: "me",
                        members: [
                            PresenceMember(userID: "ann", userInfo: ["name": "Ann"]),
                            PresenceMember(userID: "me", userInfo: ["name": "Me"]),
                        ])))
        let conn = try await server.connection(1)
        let join = PusherMessage(
            event: "pusher_internal:member_added", channel: "presence-room",
            data: .string(#"{"user_id":"bob","user_info":{"name":"Bob"}}"#))
        conn.send(join)
        conn.send(join)  // the same user on a second connection: still one member, one event
        conn.send(
            PusherMessage(
                event: "pusher_internal:member_removed", channel: "presence-room", data: .string(#"{"user_id":"ann"}"#))
        )
        conn.send(
            PusherMessage(
                event: "pusher_internal:member_removed", channel: "presence-room",
                data: .string(#"{"user_id":"ghost"}"#)))
        try await recorder.wait { if case .memberRemoved = $0 { return true } else { return false } }
        try await waitUntil { await client.members(of: "presence-room")?.count == 2 }
        #expect(recorder.count { if case .memberAdded = $0 { return true } else { return false } } == 1)
        #expect(recorder.count { if case .memberRemoved = $0 { return true } else { return false } } == 1)
        #expect(await client.members(of: "presence-room")?.members.map(\.userID) == ["me", "bob"])

        conn.close(code: 4200)
        try await waitUntil { recorder.count { $0.isSubscribed("presence-room") } == 2 }
        // After the reconnect the roster is the server's fresh one: no ghost "bob", no duplicates.
        #expect(await client.members(of: "presence-room")?.members.map(\.userID) == ["ann", "me"])
        let second = try await server.connection(2)
        let resubscribe = try await second.waitForMessage { $0.event == "pusher:subscribe" }
        let channelData = resubscribe.dataJSON?["channel_data"]?.stringValue ?? ""
        #expect(
            ChannelAuthSignature.verify(
                auth: resubscribe.dataJSON?["auth"]?.stringValue ?? "", key: key, secret: secret,
                socketID: second.socketID, channel: "presence-room", channelData: channelData),
            "re-authorized with the new socket id")
    }

    @Test func subscriptionCountAndServerSubscriptionErrorsAreSurfaced() async throws {
        let (server, client, recorder) = try await subscribedToRoom()
        defer { withExtendedLifetime(client) { server.stop() } }
        let conn = try await server.connection(1)
        conn.send(
            PusherMessage(
                event: "pusher_internal:subscription_count", channel: "room",
                data: .string(#"{"subscription_count":3}"#)))
        conn.send(
            PusherMessage(
                event: "pusher:subscription_error", channel: "room",
                data: .string(#"{"type":"AuthError","error":"nope","status":401}"#)))
        try await recorder.wait { $0 == .subscriptionCount(channel: "room", count: 3) }
        try await recorder.wait { $0 == .subscriptionError(channel: "room", status: 401, message: "nope") }
    }

    @Test func unsubscribeSendsTheFrameAndStopsEvents() async throws {
        let (server, client, recorder) = try await subscribedToRoom()
        defer { withExtendedLifetime(client) { server.stop() } }
        await client.unsubscribe("room")
        let conn = try await server.connection(1)
        let frame = try await conn.waitForMessage { $0.event == "pusher:unsubscribe" }
        #expect(frame.dataJSON?["channel"] == "room")
        try await recorder.wait { $0 == .unsubscribed(channel: "room") }
        #expect(await client.channelNames.isEmpty)
    }

    @Test func encryptedEventsAreDecryptedAndAStaleKeyIsRefreshedOnce() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let keys = KeySequence([
            [UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32), [UInt8](repeating: 3, count: 32),
        ])
        let authorizer = CallbackAuthorizer { channel, socketID in
            ChannelAuthorization(
                auth: ChannelAuthSignature.auth(key: "test-key", secret: "s", socketID: socketID, channel: channel),
                sharedSecret: Data(keys.next()).base64EncodedString())
        }
        let client = makeClient(server, authorizer: authorizer)
        let recorder = EventRecorder(client)
        let channel = "private-encrypted-vault"
        try await client.subscribe(channel)
        await client.connect()
        try await recorder.wait { $0.isSubscribed(channel) }
        let conn = try await server.connection(1)
        func send(_ name: String, _ text: String, key: [UInt8]) throws {
            conn.send(
                PusherMessage(
                    event: name, channel: channel, data: .string(try ClientSecretBox.sealPusherPayload(text, key: key)))
            )
        }
        try send("one", #"{"n":1}"#, key: [UInt8](repeating: 1, count: 32))
        try await waitUntil { recorder.channelEvents.count == 1 }
        #expect(recorder.channelEvents[0].data == ["n": 1])
        // The key rotated to 2: the client fetches a fresh key once, then decrypts.
        try send("two", #"{"n":2}"#, key: [UInt8](repeating: 2, count: 32))
        try await waitUntil { recorder.channelEvents.count == 2 }
        #expect(recorder.channelEvents[1].data == ["n": 2])
        // Garbage under a key nobody has: one refresh (to key 3) did not help: a decryption error, and it carries on.
        try send("three", #"{"n":3}"#, key: [UInt8](repeating: 9, count: 32))
        let error = try await recorder.wait { if case .decryptionError = $0 { return true } else { return false } }
        if case .decryptionError(let c, let e, _) = error { #expect(c == channel && e == "three") }
        try send("four", #"{"n":4}"#, key: [UInt8](repeating: 3, count: 32))
        try await waitUntil { recorder.channelEvents.count == 3 }
        #expect(recorder.channelEvents[2].data == ["n": 4])
    }
}

/// Hands out keys in order (the last one repeats).
final class KeySequence: Sendable {
    private let state: Mutex<[[UInt8]]>
    init(_ keys: [[UInt8]]) { state = Mutex(keys) }
    func next() -> [UInt8] {
        state.withLock { keys in keys.count > 1 ? keys.removeFirst() : keys[0] }
    }
}
