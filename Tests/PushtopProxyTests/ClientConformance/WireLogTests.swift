import PushtopConformance
import PushtopProxy
import Testing

@testable import PushtopClientConformance

/// What the judge of clients reads from the proxy's tap: connections, their channels, attempts, the current one.
@Suite("Client judge: the wire log")
struct WireLogTests {
    static let origin = ContinuousClock.now

    static func at(_ ms: Int) -> ContinuousClock.Instant { origin + .milliseconds(ms) }

    static func established(_ id: String) -> String {
        #"{"event":"pusher:connection_established","data":"{\"socket_id\":\"\#(id)\",\"activity_timeout\":5}"}"#
    }

    static func subscribe(_ channel: String) -> String {
        #"{"event":"pusher:subscribe","data":{"channel":"\#(channel)"}}"#
    }

    static func succeeded(_ channel: String) -> String {
        #"{"event":"pusher_internal:subscription_succeeded","channel":"\#(channel)","data":"{}"}"#
    }

    /// A client that connects, joins two channels, leaves one, is closed, and comes back after one refused attempt.
    static var session: WireLog {
        var log = WireLog()
        let records: [WireRecord] = [
            WireRecord(at: at(0), .attempt(connection: 1, remoteHost: "127.0.0.1", target: "/app/k", refusal: nil)),
            WireRecord(at: at(10), .message(connection: 1, fromClient: false, text: established("1.1"))),
            WireRecord(at: at(20), .message(connection: 1, fromClient: true, text: subscribe("news"))),
            WireRecord(at: at(21), .message(connection: 1, fromClient: true, text: subscribe("private-a"))),
            WireRecord(at: at(30), .message(connection: 1, fromClient: false, text: succeeded("news"))),
            WireRecord(at: at(31), .message(connection: 1, fromClient: false, text: succeeded("private-a"))),
            WireRecord(
                at: at(40),
                .message(
                    connection: 1, fromClient: true,
                    text: #"{"event":"pusher:unsubscribe","data":{"channel":"private-a"}}"#)),
            WireRecord(at: at(50), .ended(connection: 1, code: 4200, closedBy: "server")),
            WireRecord(
                at: at(60), .attempt(connection: nil, remoteHost: "127.0.0.1", target: "/app/k", refusal: "outage")),
            WireRecord(at: at(70), .attempt(connection: 2, remoteHost: "127.0.0.1", target: "/app/k", refusal: nil)),
            WireRecord(at: at(80), .message(connection: 2, fromClient: false, text: established("2.2"))),
        ]
        for record in records { log.apply(record) }
        return log
    }

    @Test func aConnectionsChannelsAreThoseConfirmedAndNotLeft() throws {
        let first = try #require(Self.session.connection(1))
        #expect(first.socketID == "1.1")
        #expect(first.requestedChannels == ["news", "private-a"])
        #expect(first.confirmedChannels == ["news", "private-a"])
        #expect(first.channelsHeld == ["news"])
        #expect(first.endCode == 4200 && first.closedBy == "server" && !first.isOpen)
    }

    @Test func attemptsCountRefusedOnesAndTheCurrentConnectionIsTheNewestEstablished() {
        let log = Self.session
        #expect(log.attempts(after: Self.at(50)) == [Self.at(60), Self.at(70)])
        #expect(log.firstEstablished(after: Self.at(50))?.number == 2)
        #expect(log.current?.number == 2)
        #expect(log.refusals.map(\.reason) == ["outage"])
    }

    @Test func messagesForAnUnknownConnectionAndASecondEndAreIgnored() {
        var log = Self.session
        log.apply(WireRecord(.message(connection: 9, fromClient: true, text: "{}")))
        log.apply(WireRecord(at: Self.at(999), .ended(connection: 1, code: 1006, closedBy: nil)))
        #expect(log.connection(1)?.endCode == 4200)
        #expect(log.connections.count == 2)
    }

    @Test func evidenceNamesTheRequestTheMessagesAndTheEnd() throws {
        let lines = try #require(Self.session.connection(1)).evidence(since: Self.origin)
        #expect(lines.first == "+0.000s connection #1 from 127.0.0.1: GET /app/k")
        #expect(lines.contains { $0.hasPrefix("+0.020s >> ") && $0.contains("pusher:subscribe") })
        #expect(lines.last == "+0.050s connection #1 ended: code 4200, closed by server")
    }

    @Test func aWaitEndsWhenTheLogShowsItOrAtItsDeadline() async {
        let wire = ClientWire()
        async let seen = wire.wait(until: .now + .seconds(30)) { $0.current != nil }
        await wire.apply(WireRecord(.attempt(connection: 1, remoteHost: "h", target: "/app/k", refusal: nil)))
        await wire.apply(WireRecord(.message(connection: 1, fromClient: false, text: Self.established("1.1"))))
        #expect(await seen)
        #expect(!(await wire.wait(until: .now + .milliseconds(50)) { $0.connections.count > 5 }))
    }
}

/// The judgement of what a client sends, one message at a time.
@Suite("Client judge: well-formed messages")
struct ClientMessageFormTests {
    static func problem(_ text: String) -> String? {
        MessageCases.problem(WireMessage(at: .now, fromClient: true, text: text))
    }

    @Test func wellFormedMessagesPass() {
        #expect(Self.problem(#"{"event":"pusher:ping","data":{}}"#) == nil)
        #expect(Self.problem(#"{"event":"pusher:subscribe","data":{"channel":"news"}}"#) == nil)
        #expect(Self.problem(#"{"event":"pusher:subscribe","data":{"channel":"private-a","auth":"k:abc"}}"#) == nil)
        #expect(
            Self.problem(
                #"{"event":"pusher:subscribe","data":{"channel":"presence-a","auth":"k:abc","channel_data":"{\"user_id\":7}"}}"#
            ) == nil)
        #expect(Self.problem(#"{"event":"client-x","channel":"private-a","data":{}}"#) == nil)
    }

    @Test(arguments: [
        ("hello", "not a JSON object"),
        ("[1,2]", "not a JSON object"),
        (#"{"data":{}}"#, "without a string event"),
        (#"{"event":"pusher:subscribe","data":{}}"#, "without data.channel"),
        (#"{"event":"pusher:subscribe","data":{"channel":"private-a"}}"#, "without an auth"),
        (#"{"event":"pusher:subscribe","data":{"channel":"presence-a","auth":"k:s"}}"#, "naming a user_id"),
        (
            #"{"event":"pusher:subscribe","data":{"channel":"presence-a","auth":"k:s","channel_data":"{}"}}"#,
            "naming a user_id"
        ),
        (#"{"event":"client-x","data":{}}"#, "without a channel"),
    ])
    func malformedMessagesAreNamed(_ text: String, _ expected: String) {
        #expect(Self.problem(text)?.contains(expected) == true, "\(text)")
    }

    @Test func theCatalogueHasUniqueIdsInGroupsAndSelectsByGroupOrId() {
        let ids = ClientCatalogue.cases.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(
            ClientCatalogue.groups == [
                "client.ping", "client.reconnect", "client.subscription", "client.messages", "client.events",
            ])
        #expect(ClientCatalogue.selected(["client.events"]).count == 2)
        #expect(
            ClientCatalogue.selected(["client.ping.answers-server-ping"]).map(\.id) == [
                "client.ping.answers-server-ping"
            ])
        // The close that sends the client away for good is the last case that acts.
        #expect(
            ids.firstIndex(of: "client.reconnect.not-unchanged-after-4009")! > ids.firstIndex(
                of: "client.reconnect.no-storm-during-outage")!)
    }
}
