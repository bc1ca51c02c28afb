import PusherProtocol
import PushtopTestSupport
import Testing

@testable import PusherChannels

/// The client's connection rules on a scripted transport: no socket, no sleep. Time is the testing loop's and moves
/// only when a test advances it, so "nothing happened" is checked after the moment it would have happened.
@Suite(.timeLimit(.minutes(1))) struct ClientRulesTests {
    static func closures(_ events: [ClientEvent]) -> [ConnectionClosure] {
        events.compactMap { if case .closed(let closure) = $0 { closure } else { nil } }
    }

    static func delays(_ events: [ClientEvent]) -> [Double] {
        events.compactMap { if case .connectingIn(let delay) = $0 { delay } else { nil } }
    }

    /// Round trips of the pongs, to the microsecond (the loop's clock counts nanoseconds).
    static func roundTrips(_ events: [ClientEvent]) -> [Double] {
        events.compactMap { if case .pong(let rtt) = $0 { (rtt * 1e6).rounded() / 1e6 } else { nil } }
    }

    /// A client on a scripted transport, connected: its first socket established (activity timeout 120 s).
    func connected() async throws -> (ScriptedTransport, PusherClient, ScriptedSocket) {
        let script = ScriptedTransport()
        let client = script.makeClient()
        await client.connect()
        let first = try await script.socket(1)
        try await first.establish()
        return (script, client, first)
    }

    @Test func closeCode4001RefusesAndNeverReconnects() async throws {
        let (script, client, first) = try await connected()
        #expect(await client.state == .connected)

        await first.serverCloses(code: 4001, reason: "app does not exist")
        #expect(await client.state == .failed)
        #expect(Self.closures(script.events).map(\.action) == [.refuse])
        // Well past any back-off: still the one socket.
        await script.advance(by: 3_600)
        #expect(script.sockets.count == 1)
        #expect(await client.state == .failed)
        await script.finish()
    }

    @Test func explicitDisconnectNeverReconnects() async throws {
        let (script, client, first) = try await connected()
        await client.disconnect()
        #expect(first.closedWith == 1000)
        // The transport reports the close later; nothing follows it, however long the client waits.
        await first.serverCloses(code: 1000)
        await script.advance(by: 3_600)
        #expect(script.sockets.count == 1)
        #expect(await client.state == .disconnected)
        await script.finish()
    }

    @Test func closeCode4200ReconnectsAtOnceAndResubscribesInOrder() async throws {
        let script = ScriptedTransport()
        let client = script.makeClient()
        try await client.subscribe("b-channel")
        try await client.subscribe("a-channel")
        await client.connect()
        let first = try await script.socket(1)
        try await first.establish(socketID: "1.1")
        #expect(first.subscribedChannels == ["b-channel", "a-channel"])
        try await first.acknowledge("b-channel")
        try await first.acknowledge("a-channel")
        #expect(await client.subscriptionState("a-channel") == .subscribed)

        await first.serverCloses(code: 4200, reason: "reconnect now")
        #expect(Self.delays(script.events) == [0])
        // No time passes: the second socket is already open.
        let second = try await script.socket(2)
        #expect(await client.subscriptionState("a-channel") == .pending)
        #expect(second.subscribedChannels.isEmpty)
        try await second.establish(socketID: "2.2")
        #expect(second.subscribedChannels == ["b-channel", "a-channel"])
        #expect(await client.socketID == "2.2")
        await script.finish()
    }

    @Test func closeCode4100BacksOffBeforeTheNextSocket() async throws {
        let script = ScriptedTransport()
        let client = script.makeClient()
        await client.connect()
        try await script.socket(1).establish()
        try await script.socket(1).serverCloses(code: 4100, reason: "over capacity")
        let delay = try #require(Self.delays(script.events).first)
        #expect(delay > 0)
        await script.advance(by: delay * 0.99)
        #expect(script.sockets.count == 1, "the client must wait out the back-off")
        await script.advance(by: delay * 0.02)
        #expect(script.sockets.count == 2)
        #expect(await client.state == .connecting)
        await script.finish()
    }

    @Test func signsInBeforeResubscribingAfterAReconnect() async throws {
        let script = ScriptedTransport()
        let options = PusherClientOptions(
            key: "key", host: "scripted.invalid", connection: ConnectionConfiguration(useTLS: false),
            userAuthenticator: CallbackUserAuthenticator { _ in
                UserAuthentication(auth: "key:signature", userData: #"{"id":"alice"}"#)
            })
        let client = script.makeClient(options: options)
        try await client.subscribe("room")
        try await client.signIn()
        await client.connect()
        let first = try await script.socket(1)
        try await first.establish(socketID: "1.1")
        try await waitUntil("the first sign-in") { first.sentEvents.contains(PusherEventName.signin) }
        try await first.receive(
            frames: #"{"event":"pusher:signin_success","data":"{\"user_data\":\"{\\\"id\\\":\\\"alice\\\"}\"}"}"#)
        #expect(first.subscribedChannels == ["#server-to-user-alice", "room"])

        await first.serverCloses(code: 4200)
        let second = try await script.socket(2)
        try await second.establish(socketID: "2.2")
        try await waitUntil("the second sign-in") { second.sentEvents.contains(PusherEventName.signin) }
        // The sign-in went out and the connection handled everything since: the channels wait for its answer.
        await script.settle()
        #expect(second.subscribedChannels.isEmpty)
        try await second.receive(
            frames: #"{"event":"pusher:signin_success","data":"{\"user_data\":\"{\\\"id\\\":\\\"alice\\\"}\"}"}"#)
        #expect(second.subscribedChannels == ["#server-to-user-alice", "room"])
        await script.finish()
    }

    @Test func pingsWhenIdleAndReconnectsWhenNoPongComes() async throws {
        let (script, client, first) = try await connected()
        await script.advance(by: 119)
        #expect(!first.sentEvents.contains(PusherEventName.ping))
        await script.advance(by: 1)
        #expect(first.sentEvents.filter { $0 == PusherEventName.ping }.count == 1)

        // The default pong timeout is 30 s.
        await script.advance(by: 29.9)
        #expect(first.closedWith == nil)
        await script.advance(by: 0.1)
        #expect(first.closedWith == 1000)
        #expect(Self.closures(script.events).last?.reason == "no pong within 30 s")
        #expect(await client.state == .connecting)
        await script.finish()
    }

    @Test func anyFrameAnswersTheIdlePingAndThePongGivesTheRoundTrip() async throws {
        let (script, client, first) = try await connected()
        await script.advance(by: 120)
        #expect(first.sentEvents.last == PusherEventName.ping)
        await script.advance(by: 2.5)
        // A malformed frame proves the connection alive as well as any other.
        await first.receive([.malformed(.invalidJSON("garbage"))])
        try await first.receive(frames: #"{"event":"pusher:pong","data":"{}"}"#)
        #expect(Self.roundTrips(script.events) == [2.5])
        await script.advance(by: 60)
        #expect(first.closedWith == nil, "the pong timeout was cancelled")
        #expect(await client.state == .connected)

        // A ping asked for by the user, answered 0.25 s later.
        await client.ping()
        await script.advance(by: 0.25)
        try await first.receive(frames: #"{"event":"pusher:pong","data":"{}"}"#)
        #expect(Self.roundTrips(script.events) == [2.5, 0.25])
        await script.finish()
    }
}
