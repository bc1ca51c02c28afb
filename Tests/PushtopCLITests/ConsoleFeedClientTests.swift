import Foundation
import PusherProtocol
import PushtopDashboard
import Synchronization
import Testing

@testable import PushtopCLI

/// The feed client against a scripted `pushtop serve` debug feed on loopback: what a user of `pushtop console` and
/// of the dashboard's console sees for a live feed, a wrong secret, a server without a feed, and a feed that breaks.
@Suite struct ConsoleFeedClientTests {
    static let secret = "s3cr3t-for-the-feed"

    static func row(_ type: ConsoleRowType, _ ms: Int64, node: String = "n1", socket: String? = "1.1") -> ConsoleRow {
        var row = ConsoleRow(type: type, timeMs: ms)
        row.node = node
        row.appID = "1"
        row.source = .server
        row.socketID = socket
        row.channel = "chat"
        return row
    }

    static let hello =
        #"event: hello\#ndata: {"node":"n1","app_id":"1","time_ms":1700000000000,"connections":3,"channels":["chat","presence-room"],"cluster":false}\#n\#n"#

    static func endpoint(_ server: ConsoleTestFeedServer, secret: String = secret, types: [ConsoleRowType] = [])
        -> ConsoleFeedEndpoint
    {
        ConsoleFeedEndpoint(
            host: "127.0.0.1", port: server.port, tls: false, appID: "1", key: "the-key", secret: secret, types: types)
    }

    /// Collects a client's events.
    final class Events: Sendable {
        private let events = Mutex<[ConsoleFeedClient.Event]>([])
        func append(_ event: ConsoleFeedClient.Event) { events.withLock { $0.append(event) } }
        var all: [ConsoleFeedClient.Event] { events.withLock { $0 } }
        var rows: [ConsoleRow] {
            all.flatMap { event -> [ConsoleRow] in
                if case .rows(let rows) = event { return rows }
                return []
            }
        }
        var states: [ConsoleSourceStatus.State] {
            all.compactMap { event in
                if case .state(let state) = event { return state }
                return nil
            }
        }
    }

    static func eventually(_ timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while !condition() {
            guard clock.now < end else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs `client` until `condition` holds (or 10 s pass), then cancels it and waits for it to end.
    static func run(_ client: ConsoleFeedClient, into events: Events, until condition: () -> Bool) async throws {
        let task = Task { await client.run(events.append) }
        try await eventually { condition() }
        task.cancel()
        _ = await task.value
    }

    static let fast = ConsoleFeedClient.Backoff(initial: .milliseconds(20), maximum: .milliseconds(50))

    @Test func readsTheHelloAndEveryRowOfASignedFeedWhateverTheChunking() async throws {
        let rows = [
            Self.row(.connection, 1_700_000_000_001), Self.row(.subscribed, 1_700_000_000_002),
            Self.row(.apiMessage, 1_700_000_000_003, socket: nil),
        ]
        // One stream, cut at awkward places: inside "data:", inside a row, between CR and LF; a keepalive between.
        let text = Self.hello + rows.map { "data: \($0.jsonLine)\r\n\r\n" }.joined(separator: ": keepalive\n\n")
        let bytes = Array(text.utf8)
        var pieces: [String] = []
        var i = 0
        for size in [3, 17, 1, 60, 2, 90, 7] where i < bytes.count {
            let end = min(bytes.count, i + size)
            pieces.append(String(decoding: bytes[i..<end], as: UTF8.self))
            i = end
        }
        if i < bytes.count { pieces.append(String(decoding: bytes[i...], as: UTF8.self)) }
        let server = try await ConsoleTestFeedServer.start(
            secret: Self.secret, answers: [.stream(pieces, close: false)])
        let events = Events()
        let client = ConsoleFeedClient(endpoint: Self.endpoint(server, types: [.connection, .apiMessage, .subscribed]))
        try await Self.run(client, into: events) { events.rows.count >= 3 }
        await server.stop()

        #expect(events.rows == rows)
        #expect(events.states.prefix(2) == [.connecting, .live])
        let hellos = events.all.compactMap { event -> (ConsoleSnapshot, Bool)? in
            if case .hello(let snapshot, let cluster) = event { return (snapshot, cluster) }
            return nil
        }
        #expect(hellos.count == 1)
        #expect(hellos.first?.0.node == "n1")
        #expect(hellos.first?.0.connections == 3)
        #expect(hellos.first?.0.occupiedChannels == ["chat", "presence-room"])
        #expect(hellos.first?.0.source == "127.0.0.1:\(server.port)")
        #expect(hellos.first?.1 == false)
        let request = try #require(server.requests.first)
        #expect(request.path == "/apps/1/console")
        #expect(request.signed, "signed like an HTTP API GET: \(request.query)")
        #expect(request.query["auth_key"] == "the-key")
        #expect(request.query["types"] == "connection,api_message,subscribed")
        #expect(!request.query.values.contains(Self.secret))
    }

    @Test func aWrongSecretFailsAtOnceWithAClearMessageAndWithoutTheSecret() async throws {
        let server = try await ConsoleTestFeedServer.start(
            secret: "the-servers-secret",
            answers: [.status(401, #"{"error":"Invalid signature: you should have sent HmacSHA256Hex(...)"}"#)])
        let events = Events()
        let client = ConsoleFeedClient(endpoint: Self.endpoint(server, secret: "wrong-secret-1234"), backoff: Self.fast)
        let last = await client.run(events.append)
        await server.stop()

        guard case .failed(let text) = last else {
            Issue.record("expected failed, got \(last)")
            return
        }
        #expect(text.contains("the secret does not sign requests for app 1"))
        #expect(text.contains("401: Invalid signature"))
        #expect(!text.contains("wrong-secret-1234"))
        #expect(server.requests.count == 1, "a wrong secret is not retried")
        #expect(server.requests.first?.signed == false)
    }

    @Test func aServerWithoutAFeedIsUnavailableAndSaysWhatToDoInstead() async throws {
        for status in [404, 405] {
            let server = try await ConsoleTestFeedServer.start(answers: [.status(status, "", contentType: "text/plain")]
            )
            let client = ConsoleFeedClient(endpoint: Self.endpoint(server), backoff: Self.fast)
            let last = await client.run { _ in }
            await server.stop()
            #expect(
                last
                    == .unavailable(
                        "not a pushtop serve: no debug feed at /apps/1/console; run pushtop in front of your webhook endpoint: pushtop webhooks --listen HOST:PORT --forward URL"
                    ), "\(status)")
            #expect(server.requests.count == 1)
        }
    }

    @Test func anUnknownAppIdIsAFailureNamingTheApp() async throws {
        let server = try await ConsoleTestFeedServer.start(answers: [
            .status(404, #"{"error":"Unknown app id '1'"}"#)
        ])
        let last = await ConsoleFeedClient(endpoint: Self.endpoint(server), backoff: Self.fast).run { _ in }
        await server.stop()
        guard case .failed(let text) = last else {
            Issue.record("expected failed, got \(last)")
            return
        }
        #expect(text.contains("has no app 1"))
    }

    @Test func reconnectsWithBackoffAfterAnErrorAndAfterTheStreamEnds() async throws {
        let first = Self.row(.connection, 1_700_000_000_001)
        let second = Self.row(.disconnection, 1_700_000_000_009)
        let server = try await ConsoleTestFeedServer.start(answers: [
            .status(500, #"{"error":"boom"}"#),
            .stream([Self.hello, "data: \(first.jsonLine)\n\n"], close: true),
            .stream([Self.hello, "data: \(second.jsonLine)\n\n"], close: false),
        ])
        let events = Events()
        let client = ConsoleFeedClient(endpoint: Self.endpoint(server), backoff: Self.fast)
        try await Self.run(client, into: events) { events.rows.count >= 2 }
        await server.stop()

        #expect(events.rows == [first, second])
        let states = events.states
        #expect(states.contains(.failed("127.0.0.1:\(server.port) answered 500: boom")))
        #expect(states.contains(.failed("127.0.0.1:\(server.port) closed the feed")))
        #expect(states.filter { $0 == .live }.count == 2)
        #expect(server.requests.count == 3)
        #expect(server.requests.allSatisfy { $0.signed }, "each attempt is signed afresh: \(server.requests)")
    }

    @Test func aNodeThatStaysDownIsReportedOnceWhileTheClientRetries() async throws {
        let server = try await ConsoleTestFeedServer.start(answers: [.status(503, #"{"error":"starting"}"#)])
        let events = Events()
        let client = ConsoleFeedClient(endpoint: Self.endpoint(server), backoff: Self.fast)
        try await Self.run(client, into: events) { server.requests.count >= 5 }
        await server.stop()
        #expect(server.requests.count >= 5)
        #expect(events.states == [.connecting, .failed("127.0.0.1:\(server.port) answered 503: starting")])
    }

    @Test func severalNodesOfAClusterPassOnOnlyTheirOwnRows() async throws {
        let mine = Self.row(.subscribed, 1_700_000_000_001, node: "n1")
        let theirs = Self.row(.subscribed, 1_700_000_000_002, node: "n2")
        var gap = ConsoleRow(type: .gap, timeMs: 1_700_000_000_003)
        gap.dropped = 12
        let hello = Self.hello.replacingOccurrences(of: #""cluster":false"#, with: #""cluster":true"#)
        let pieces = [hello] + [mine, theirs, gap].map { "data: \($0.jsonLine)\n\n" }
        let server = try await ConsoleTestFeedServer.start(answers: [.stream(pieces, close: false)])
        for ownNodeOnly in [true, false] {
            let events = Events()
            let client = ConsoleFeedClient(endpoint: Self.endpoint(server), ownNodeOnly: ownNodeOnly)
            try await Self.run(client, into: events) { events.rows.contains(gap) }
            #expect(events.rows == (ownNodeOnly ? [mine, gap] : [mine, theirs, gap]))
        }
        await server.stop()
    }

    @Test func eventsThatAreNotRowsAreSkippedAndCounted() async throws {
        let row = Self.row(.vacated, 1_700_000_000_005)
        let server = try await ConsoleTestFeedServer.start(answers: [
            .stream(
                [Self.hello, "data: {not json\n\n", "event: surprise\ndata: {}\n\n", "data: \(row.jsonLine)\n\n"],
                close: false)
        ])
        let events = Events()
        let client = ConsoleFeedClient(endpoint: Self.endpoint(server))
        try await Self.run(client, into: events) { !events.rows.isEmpty }
        await server.stop()
        #expect(events.rows == [row])
        #expect(client.unreadableEvents == 2)
    }
}
