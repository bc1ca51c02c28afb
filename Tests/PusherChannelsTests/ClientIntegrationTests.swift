import Foundation
import PushtopTestSupport
import Synchronization
import Testing

@testable import PusherChannels

/// The client over real loopback WebSockets, against the scriptable protocol server.
@Suite(.timeLimit(.minutes(1))) struct ClientIntegrationTests {
    /// A scripted server and a client of it (made by `make`), with its recorder, once the client is connected.
    func connected(_ make: (ScriptedPusherServer) -> PusherClient) async throws
        -> (server: ScriptedPusherServer, client: PusherClient, recorder: EventRecorder)
    {
        let server = try await ScriptedPusherServer.start()
        let client = make(server)
        let recorder = EventRecorder(client)
        await client.connect()
        do {
            try await recorder.waitForState(.connected)
        } catch {
            server.stop()
            throw error
        }
        return (server, client, recorder)
    }

    func makeClient(
        _ server: ScriptedPusherServer, key: String = "test-key",
        policy: ReconnectPolicy = .init(minDelay: 0.05, maxDelay: 0.2, jitter: 0),
        pongTimeout: Double = 30, activityTimeout: Double? = nil, authorizer: (any Authorizer)? = nil
    ) -> PusherClient {
        PusherClient(
            options: PusherClientOptions(
                key: key, host: "127.0.0.1", port: server.port,
                connection: ConnectionConfiguration(
                    useTLS: false, activityTimeout: activityTimeout, pongTimeout: pongTimeout,
                    reconnect: policy),
                authorizer: authorizer))
    }

    /// `client` and a recorder of what it publishes, made before it connects.
    func recorded(_ client: PusherClient) -> (PusherClient, EventRecorder) {
        (client, EventRecorder(client))
    }

    @Test func connectsWithTheProtocolURLAndPublishesStates() async throws {
        let (server, client, recorder) = try await connected { makeClient($0) }
        defer { server.stop() }
        #expect(recorder.states == [.connecting, .connected])
        #expect(
            server.paths.first
                == "/app/test-key?protocol=7&client=pushtop-swift&version=\(PusherClient.version)&flash=false")
        let socketID = await client.socketID
        #expect(socketID == "1.1001")
        let connectedChange = recorder.all.compactMap {
            if case .state(let c) = $0, c.current == .connected { return c } else { return nil }
        }
        #expect(connectedChange.first?.socketID == "1.1001")
        await client.disconnect()
        try await recorder.waitForState(.disconnected)
    }

    @Test func subscriptionsQueuedBeforeConnectAreSentOnceConnected() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let (client, recorder) = recorded(makeClient(server))
        try await client.subscribe("ticker")
        try await client.subscribe("chat")
        try await client.subscribe("ticker")
        await client.connect()
        try await recorder.wait("chat subscribed") { $0.isSubscribed("chat") }
        let conn = try await server.connection(1)
        let subscribes = conn.messages.filter { $0.event == "pusher:subscribe" }.map {
            $0.dataJSON?["channel"]?.stringValue
        }
        #expect(subscribes == ["ticker", "chat"])
    }

    @Test func eventsArriveWithParsedDataAndUserID() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let (client, recorder) = recorded(makeClient(server))
        let bound = BindingLog()
        await client.bind(event: "price", channel: "ticker") { bound.append($0.name) }
        let everything = await client.bind { bound.append("any:" + $0.name) }
        try await client.subscribe("ticker")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("ticker") }
        let conn = try await server.connection(1)
        conn.send(PusherMessage(event: "price", channel: "ticker", data: .string(#"{"p":1.5}"#)))
        conn.send(PusherMessage(event: "note", channel: "ticker", data: .string("plain text"), userID: "u9"))
        conn.send(PusherMessage(event: "pusher:cache_miss", channel: "ticker"))
        try await waitUntil { recorder.channelEvents.count == 3 }
        let events = recorder.channelEvents
        #expect(events[0].data == ["p": 1.5])
        #expect(events[1].data == "plain text")
        #expect(events[1].userID == "u9")
        #expect(events[2].name == "pusher:cache_miss")
        #expect(bound.names == ["price", "any:price", "any:note", "any:pusher:cache_miss"])
        await client.unbind(everything)
        await client.unbindAll(channel: "ticker")
        conn.send(PusherMessage(event: "price", channel: "ticker", data: .string("{}")))
        try await waitUntil { recorder.channelEvents.count == 4 }
        #expect(bound.names.count == 4, "unbound callbacks are not called")
    }

    @Test func serverPingIsAnsweredWithPong() async throws {
        let (server, client, _) = try await connected { makeClient($0) }
        defer { withExtendedLifetime(client) { server.stop() } }
        let conn = try await server.connection(1)
        conn.send(PusherMessage(event: "pusher:ping", data: .string("{}")))
        try await conn.waitForMessage("pong") { $0.event == "pusher:pong" }
    }

    @Test func idleConnectionPingsAndReportsRoundTrip() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let (client, recorder) = recorded(makeClient(server, activityTimeout: 0.2))
        await client.connect()
        let conn = try await server.connection(1)
        try await conn.waitForMessage("ping") { $0.event == "pusher:ping" }
        try await recorder.wait("pong") { if case .pong = $0 { return true } else { return false } }
        #expect(await client.state == .connected)
    }

    @Test func pingOnDemandReportsTheRoundTrip() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let (client, recorder) = recorded(makeClient(server))
        await client.ping()  // not connected: nothing is sent
        await client.connect()
        try await recorder.waitForState(.connected)
        await client.ping()
        await client.ping()  // one ping at a time
        try await recorder.wait("pong") {
            if case .pong(let rtt) = $0 { return rtt >= 0 && rtt < 5 } else { return false }
        }
        let conn = try await server.connection(1)
        #expect(conn.messages.filter { $0.event == "pusher:ping" }.count == 1)
    }

    @Test func missingPongDropsTheConnectionAndReconnects() async throws {
        var behavior = ScriptedPusherServer.Behavior()
        behavior.answerPings = false
        let server = try await ScriptedPusherServer.start(behavior)
        defer { server.stop() }
        let (client, recorder) = recorded(makeClient(server, pongTimeout: 0.3, activityTimeout: 0.2))
        await client.connect()
        try await recorder.waitForState(.connected, occurrence: 2)
        #expect(recorder.states.prefix(4) == [.connecting, .connected, .connecting, .connected])
        #expect(server.connections.count >= 2)
    }

    @Test func refusedKeyFailsWithTheCodeAndDoesNotReconnect() async throws {
        var behavior = ScriptedPusherServer.Behavior()
        behavior.refuseWith = (4001, "App key test-key not in this cluster")
        let server = try await ScriptedPusherServer.start(behavior)
        defer { server.stop() }
        // WSClient can, rarely and under load, miss a close that follows the upgrade at once; the handshake
        // timeout then retries, and the next attempt sees the refusal.
        let client = PusherClient(
            options: PusherClientOptions(
                key: "test-key", host: "127.0.0.1", port: server.port,
                connection: ConnectionConfiguration(
                    useTLS: false, handshakeTimeout: 1,
                    reconnect: .init(minDelay: 0.05, maxDelay: 0.1, jitter: 0))))
        let recorder = EventRecorder(client)
        await client.connect()
        try await recorder.waitForState(.failed, timeout: 20)
        // An earlier attempt that timed out (above) may report its own error and close after the refusal: the
        // refusal is among them, not necessarily last.
        #expect(recorder.errors.contains { $0.code == 4001 }, "\(recorder.errors)")
        let closures = recorder.all.compactMap { if case .closed(let c) = $0 { return c } else { return nil } }
        #expect(closures.contains { $0.code == 4001 && $0.action == .refuse }, "\(closures)")
        // That no socket follows is ClientRulesTests.closeCode4001RefusesAndNeverReconnects (on the loop's clock, so
        // "later" is certain); here: the refusal arrives over the wire and ends in `failed`.
    }

    @Test func code4200ReconnectsAtOnceAndResubscribesWithoutDuplicates() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let (client, recorder) = recorded(makeClient(server, policy: .init(minDelay: 5, maxDelay: 5, jitter: 0)))
        try await client.subscribe("ticker")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("ticker") }
        try await server.connection(1).close(code: 4200, reason: "reconnect")
        // At once, not after the 5 s back-off: `connectingIn(delay: 0)` below says so, whatever the machine's speed.
        try await recorder.waitForState(.connected, occurrence: 2, timeout: LoadedMachine.bound(5))
        try await waitUntil { recorder.count { $0.isSubscribed("ticker") } == 2 }
        let second = try await server.connection(2)
        #expect(second.messages.filter { $0.event == "pusher:subscribe" }.count == 1)
        #expect(recorder.all.contains(.connectingIn(delay: 0)))
    }

    /// A policy of 0.4 s still waits the protocol's 1 s after 4100.
    @Test func code4100WaitsForTheBackOff() async throws {
        let (server, client, recorder) = try await connected {
            makeClient($0, policy: .init(minDelay: 0.4, maxDelay: 2, jitter: 0))
        }
        defer { withExtendedLifetime(client) { server.stop() } }
        let closedAt = Date()
        try await server.connection(1).close(code: 4100, reason: "over capacity")
        try await recorder.waitForState(.connected, occurrence: 2)
        #expect(Date().timeIntervalSince(closedAt) >= 0.95)
        #expect(recorder.all.contains(.connectingIn(delay: 1)))
    }

    @Test func pusherErrorIsSurfacedWithoutReconnecting() async throws {
        let (server, client, recorder) = try await connected { makeClient($0) }
        defer { server.stop() }
        try await server.connection(1).send(#"{"event":"pusher:error","data":{"code":4301,"message":"slow down"}}"#)
        try await waitUntil { recorder.errors.contains { $0.code == 4301 && $0.message == "slow down" } }
        #expect(await client.state == .connected)
        #expect(server.connections.count == 1)
    }

    @Test func hostileFramesAreReportedAndSkipped() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let (client, recorder) = recorded(makeClient(server))
        try await client.subscribe("c")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("c") }
        let conn = try await server.connection(1)
        conn.send("{not json")
        conn.send("[1,2,3]")
        conn.send(#"{"data":"no event"}"#)
        conn.send(#"{"event":42}"#)
        conn.send(#"{"event":"e","channel":{"x":1}}"#)
        conn.sendBinary([1, 2, 3])
        conn.send(#"{"event":"big","channel":"c","data":""# + String(repeating: "x", count: 1_100_000) + "\"}")
        conn.send(PusherMessage(event: "after", channel: "c", data: .string("{}")))
        try await waitUntil { recorder.channelEvents.contains { $0.name == "after" } }
        #expect(recorder.errors.count == 7)
        #expect(recorder.errors.contains { $0.message.contains("binary frame of 3 bytes") })
        #expect(recorder.errors.contains { $0.message.contains("exceeds") })
        #expect(await client.state == .connected)
    }

    @Test func droppedTCPConnectionReconnectsPerPolicy() async throws {
        let (server, client, recorder) = try await connected { makeClient($0) }
        defer { withExtendedLifetime(client) { server.stop() } }
        try await server.connection(1).drop()
        try await recorder.waitForState(.connected, occurrence: 2)
        #expect(
            recorder.all.contains {
                if case .closed(let c) = $0 { return c.action == .followPolicy } else { return false }
            })
    }

    @Test func unreachableServerBecomesUnavailableThenFailsWhenRetriesRunOut() async throws {
        // This test's fault proxy with its listener taken down: every attempt is refused (the port is the proxy's, not
        // a stopped server's that a parallel test may be given again).
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        await proxy.takeDown()
        let client = PusherClient(
            options: PusherClientOptions(
                key: "k", host: "127.0.0.1", port: proxy.port,
                connection: ConnectionConfiguration(
                    useTLS: false, unavailableTimeout: 0.3,
                    reconnect: .init(minDelay: 0.2, maxDelay: 0.2, maxRetries: 3, jitter: 0))))
        let recorder = EventRecorder(client)
        await client.connect()
        try await recorder.waitForState(.failed)
        #expect(recorder.states == [.connecting, .unavailable, .failed])
        #expect(recorder.count { if case .connectingIn = $0 { return true } else { return false } } == 3)
        #expect(await client.failureReason?.contains("gave up after 3 failed retries") == true)
        await proxy.shutdown()
    }

    @Test func explicitDisconnectDoesNotReconnect() async throws {
        let (server, client, recorder) = try await connected { makeClient($0) }
        defer { server.stop() }
        await client.disconnect()
        try await recorder.waitForState(.disconnected)
        // That no socket follows later is ClientRulesTests.explicitDisconnectNeverReconnects (on the loop's clock).
        #expect(server.connections.count == 1)
        #expect(recorder.states.last == .disconnected)
    }

    @Test func clientEventsAreValidatedLocally() async throws {
        let server = try await ScriptedPusherServer.start()
        defer { server.stop() }
        let (client, recorder) = recorded(
            makeClient(server, authorizer: SecretAuthorizer(key: "test-key", secret: "s", userID: "me")))
        try await client.subscribe("private-room")
        try await client.subscribe("public-room")
        await client.connect()
        try await recorder.wait { $0.isSubscribed("private-room") }
        try await recorder.wait { $0.isSubscribed("public-room") }
        await #expect(throws: ClientError.notClientEvent(event: "typing")) {
            try await client.trigger(channel: "private-room", event: "typing", data: [:])
        }
        await #expect(throws: ClientError.clientEventsNotAllowed(channel: "public-room", kind: .public)) {
            try await client.trigger(channel: "public-room", event: "client-typing", data: [:])
        }
        await #expect(throws: ClientError.notSubscribed(channel: "private-other")) {
            try await client.trigger(channel: "private-other", event: "client-typing", data: [:])
        }
        try await client.trigger(channel: "private-room", event: "client-typing", data: ["on": true])
        let conn = try await server.connection(1)
        let sent = try await conn.waitForMessage { $0.event.hasPrefix("client-") }
        #expect(sent.channel == "private-room" && sent.data == ["on": true])
        #expect(conn.messages.filter { $0.event.hasPrefix("client-") || $0.event == "typing" }.count == 1)
    }

    @Test func invalidChannelNamesAreRefusedWithAReason() async throws {
        let client = PusherClient(options: PusherClientOptions(key: "k"))
        await #expect(throws: ClientError.invalidChannelName(.invalidCharacter(" ", position: 3))) {
            try await client.subscribe("ab c")
        }
    }
}

/// Names recorded by binding callbacks.
final class BindingLog: Sendable {
    private let store = Mutex<[String]>([])
    func append(_ name: String) { store.withLock { $0.append(name) } }
    var names: [String] { store.withLock { $0 } }
}
