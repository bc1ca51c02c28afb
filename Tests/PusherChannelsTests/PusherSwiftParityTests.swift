import Foundation
import PusherProtocol
import PushtopServer
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// What a PusherSwift user expects to find (issue 33), against the real embedded server over loopback:
/// `unsubscribeAll()`, a subscribe with a caller-supplied authorization, and reconnection that keeps trying by
/// default. (The path prefix behind a reverse proxy is in PusherChannelsEndToEndTests, through a real nginx.)
@Suite(.timeLimit(.minutes(1))) struct PusherSwiftParityTests {
    func client(
        _ server: EmbeddedServer, port: Int? = nil, authorizer: (any Authorizer)? = nil,
        connection: ConnectionConfiguration = ConnectionConfiguration(
            useTLS: false, reconnect: .init(minDelay: 0.05, maxDelay: 0.1, jitter: 0))
    ) -> PusherClient {
        PusherClient(
            options: PusherClientOptions(
                key: server.configuration.app.key, host: "127.0.0.1", port: port ?? server.port,
                connection: connection, authorizer: authorizer))
    }

    /// The channels the server has occupied, from its HTTP API.
    func occupied(_ server: EmbeddedServer) async throws -> Set<String> {
        let response = try await server.api.channels()
        guard case .object(let channels)? = response.json?["channels"] else { return [] }
        return Set(channels.keys)
    }

    @Test func unsubscribeAllLeavesEveryChannelOnTheServer() async throws {
        try await withServer { server in
            let key = server.configuration.app.key, secret = server.configuration.app.secret
            let client = client(server, authorizer: SecretAuthorizer(key: key, secret: secret, userID: "ada"))
            let recorder = EventRecorder(client)
            let names = ["news", "private-orders", "sports"]
            for name in names { try await client.subscribe(name) }
            await client.connect()
            for name in names { try await recorder.wait("subscribed to \(name)") { $0.isSubscribed(name) } }
            try await waitUntil("the server has the three channels") { try await occupied(server) == Set(names) }

            await client.unsubscribeAll()

            #expect(await client.channelNames.isEmpty)
            let left = recorder.all.compactMap { if case .unsubscribed(let c) = $0 { return c } else { return nil } }
            #expect(left == names)
            try await waitUntil("the server has no channel left") { try await occupied(server).isEmpty }
            #expect(await client.state == .connected, "the connection stays")
            // A channel subscribed afterwards works as usual.
            try await client.subscribe("news")
            try await recorder.wait("subscribed to news again") { event in
                if case .subscribed("news", _) = event { return true } else { return false }
            }
            try await waitUntil { try await occupied(server) == ["news"] }
            await client.shutdown()
        }
    }

    @Test func subscribeWithASuppliedAuthorizationNeedsNoAuthorizer() async throws {
        try await withServer { server in
            let client = client(server)  // no authorizer at all
            let recorder = EventRecorder(client)
            await client.connect()
            try await recorder.waitForState(.connected)
            let socketID = try #require(await client.socketID)

            let auth = server.auth(socketID: socketID, channel: "private-orders")
            try await client.subscribe("private-orders", authorization: ChannelAuthorization(auth: auth))
            try await recorder.wait("subscribed to private-orders") { $0.isSubscribed("private-orders") }

            let channelData = #"{"user_id":"ada","user_info":{"name":"Ada"}}"#
            let presenceAuth = server.auth(socketID: socketID, channel: "presence-room", channelData: channelData)
            try await client.subscribe(
                "presence-room", authorization: ChannelAuthorization(auth: presenceAuth, channelData: channelData))
            try await recorder.wait("subscribed to presence-room") { $0.isSubscribed("presence-room") }
            #expect(await client.members(of: "presence-room")?.me == "ada")
            #expect(await client.members(of: "presence-room")?.members.map(\.userID) == ["ada"])

            _ = try await server.api.trigger(channels: ["private-orders"], event: "created", data: #"{"id":1}"#)
            try await waitUntil("the event on private-orders") {
                recorder.channelEvents.contains { $0.channel == "private-orders" && $0.name == "created" }
            }
            // The trace says where the authorization came from.
            let traces = recorder.all.compactMap { if case .authorization(let t) = $0 { return t } else { return nil } }
            #expect(traces.map(\.authorizer) == ["supplied", "supplied"])
            await client.shutdown()
        }
    }

    @Test func aSuppliedAuthorizationForAnotherSocketIsRefusedByTheServer() async throws {
        try await withServer { server in
            let client = client(server)
            let recorder = EventRecorder(client)
            await client.connect()
            try await recorder.waitForState(.connected)
            let wrong = server.auth(socketID: "1.2", channel: "private-orders")
            try await client.subscribe("private-orders", authorization: ChannelAuthorization(auth: wrong))
            let error = try await recorder.wait("subscription error") { event in
                if case .subscriptionError("private-orders", _, _) = event { return true } else { return false }
            }
            guard case .subscriptionError(_, let status, _) = error else { return }
            #expect(status == 401 || status == 403 || status == nil, "\(error)")
            await client.shutdown()
        }
    }

    /// After a reconnect the supplied value (signed for the old socket id) is not reused: the authorizer is asked.
    @Test func afterAReconnectTheAuthorizerIsAsked() async throws {
        try await withServer { server in
            let key = server.configuration.app.key, secret = server.configuration.app.secret
            let asked = Counter()
            let authorizer = CallbackAuthorizer { channel, socketID in
                asked.increment()
                return ChannelAuthorization(
                    auth: ChannelAuthSignature.auth(key: key, secret: secret, socketID: socketID, channel: channel))
            }
            let client = client(server, authorizer: authorizer)
            let recorder = EventRecorder(client)
            await client.connect()
            try await recorder.waitForState(.connected)
            let socketID = try #require(await client.socketID)
            let auth = server.auth(socketID: socketID, channel: "private-orders")
            try await client.subscribe("private-orders", authorization: ChannelAuthorization(auth: auth))
            try await recorder.wait { $0.isSubscribed("private-orders") }
            #expect(asked.value == 0)

            await client.disconnect()
            await client.connect()
            try await recorder.waitForState(.connected, occurrence: 2)
            try await waitUntil("subscribed again") {
                recorder.all.filter { $0.isSubscribed("private-orders") }.count == 2
            }
            #expect(asked.value == 1)
            await client.shutdown()
        }
    }

    /// With the default policy (only the delays shortened) the client does not give up after six failures: it
    /// keeps trying, `unavailable`, and connects once a server listens on its port.
    @Test func byDefaultTheClientKeepsTryingUntilTheServerIsBack() async throws {
        var dead: DeadPort? = try DeadPort()
        let port = dead!.port
        let configuration = ConnectionConfiguration(
            useTLS: false, unavailableTimeout: 0.2, reconnect: .init(minDelay: 0.01, maxDelay: 0.02, jitter: 0))
        #expect(configuration.reconnect.maxRetries == ReconnectPolicy.default.maxRetries)
        let client = PusherClient(
            options: PusherClientOptions(key: "pushtop-key", host: "127.0.0.1", port: port, connection: configuration))
        let recorder = EventRecorder(client)
        await client.connect()
        let closures = { recorder.count { if case .closed = $0 { return true } else { return false } } }
        try await waitUntil("20 failed attempts") { closures() >= 20 }
        #expect(!recorder.states.contains(.failed))
        #expect(await client.state == .unavailable)

        dead = nil  // the port is free: a server can take it
        try await withServer({
            $0.port = port; $0.app.key = "pushtop-key"
        }) { server in
            try await recorder.waitForState(.connected)
            #expect(!recorder.states.contains(.failed))
            await client.shutdown()
        }
        _ = dead
    }
}
