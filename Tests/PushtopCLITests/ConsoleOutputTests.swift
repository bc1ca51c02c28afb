import Foundation
import PusherProtocol
import PushtopConfig
import PushtopDashboard
import Synchronization
import Testing

@testable import PushtopCLI
@testable import PushtopDashboard

/// What `pushtop console` prints and records: JSON lines that read back as the same rows, `--type` filtering,
/// recordings that `pushtop replay` reads back row for row, status lines on stderr.
@Suite struct ConsoleOutputTests {
    /// A row with every field set.
    static var fullRow: ConsoleRow {
        var row = ConsoleRow(type: .disconnection, timeMs: 1_700_000_000_123)
        row.node = "node-a"
        row.appID = "1"
        row.source = .server
        row.socketID = "123.456"
        row.channel = "presence-room"
        row.event = "member_removed"
        row.userID = "u-1"
        row.userInfo = .object(["name": "Ada \"the\" first", "n": 1])
        row.channels = ["presence-room", "chat"]
        row.data = #"{"text":"é漢🎉\n"}"#
        row.dataBytes = 2000
        row.dataTruncated = true
        row.excludedSocketID = "9.9"
        row.batch = true
        row.remoteAddress = "127.0.0.1:5555"
        row.origin = "https://example.com"
        row.protocolVersion = 7
        row.clientLibrary = "js"
        row.clientVersion = "8.6.0"
        row.tls = false
        row.code = 4201
        row.reason = "pong not received"
        row.closedBy = .timeout
        row.lifetimeMs = 61_000
        row.rule = "activity_timeout"
        row.status = 500
        row.url = "http://127.0.0.1:9/hook"
        row.attempt = 2
        row.events = ["member_removed"]
        row.dropped = 3
        row.subscriptionCount = 4
        row.expectedSignature = "aa"
        row.receivedSignature = "bb"
        row.cause = "wrong secret"
        row.problem = "no_grace"
        return row
    }

    @Test func aPrintedLineReadsBackAsTheSameRow() throws {
        let row = Self.fullRow
        let line = row.jsonLine
        #expect(!line.contains("\n"))
        #expect(line.hasPrefix(#"{"type":"disconnection","time":"2023-11-14T22:13:20.123Z","time_ms":1700000000123"#))
        #expect(ConsoleRow(jsonLine: line) == row)
    }

    @Test func typesAreRepeatableOrCommaSeparatedAndAnUnknownOneNamesTheValidOnes() throws {
        let filter = try ConsoleTypeFilter(parsing: ["api_message, client_event", "gap"])
        #expect(filter.types == [.apiMessage, .clientEvent, .gap])
        #expect(filter.ordered == [.apiMessage, .clientEvent, .gap])
        #expect(filter.admits(.gap) && !filter.admits(.connection))
        #expect(try ConsoleTypeFilter(parsing: []).admits(.webhookProblem))
        #expect(throws: ConsoleTypeFilterError.self) { try ConsoleTypeFilter(parsing: ["connection,conection"]) }
        do {
            _ = try ConsoleTypeFilter(parsing: ["Connection"])
        } catch {
            #expect(error.description.hasPrefix("unknown type 'Connection'; the types are: connection, disconnection"))
            #expect(error.description.contains("webhook_rejected, webhook_problem"))
        }
    }

    @Test func theCommandRejectsAnUnknownTypeAndBadAddresses() {
        #expect(throws: (any Error).self) { try ConsoleCommand.parse(["--type", "bogus"]) }
        #expect(throws: (any Error).self) { try ConsoleCommand.parse(["--node", "localhost"]) }
        #expect(throws: (any Error).self) { try ConsoleCommand.parse(["--webhook-listen", "nowhere"]) }
        #expect(NodeAddress.listening("127.0.0.1:0") == NodeAddress(host: "127.0.0.1", port: 0))
        #expect(throws: Never.self) { try ConsoleCommand.parse(["--type", "connection,gap", "--node", "h:1"]) }
    }

    @Test func severalNodesGiveOneFeedEachAndPusherNone() throws {
        let command = try ConsoleCommand.parse(["--node", "a:1", "--node", "b:2", "--type", "gap", "--secret", "x1234"])
        let sources = ConsoleCommand.sources(
            api: command.api, nodes: command.nodes.addresses,
            filter: try ConsoleTypeFilter(parsing: command.types), webhookListen: nil)
        #expect(sources.feeds.map(\.description) == ["a:1", "b:2"])
        #expect(sources.feeds.allSatisfy { $0.types == [.gap] && $0.secret == "x1234" })
        #expect(sources.webhooks == nil)
        let pusher = try ConsoleCommand.parse(["--cluster", "eu", "--webhook-listen", "127.0.0.1:0"])
        let pusherSources = ConsoleCommand.sources(
            api: pusher.api, nodes: [], filter: ConsoleTypeFilter(),
            webhookListen: NodeAddress(host: "127.0.0.1", port: 0))
        #expect(pusherSources.feeds.isEmpty)
        #expect(pusherSources.absent.count == 1)
        #expect(pusherSources.webhooks?.credentials.first?.key == "pushtop-key")
    }

    @Test func thePrinterPrintsTheAdmittedRowsAndRecordsThemForReplay() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try RecordingWriter(
            path: path,
            header: RecordingHeader(
                started: 1, endpoint: "127.0.0.1:6001 no TLS", channels: [], source: "pushtop console"),
            scrub: ["the-secret"])
        let out = Mutex("")
        let err = Mutex("")
        let printer = ConsolePrinter(
            filter: try ConsoleTypeFilter(parsing: ["disconnection,api_message"]), recorder: recorder,
            writeOut: { text in out.withLock { $0 += text } }, writeErr: { text in err.withLock { $0 += text } })
        var message = ConsoleRow(type: .apiMessage, timeMs: 1_700_000_000_500)
        message.data = "contains the-secret by accident"
        printer.post([Self.fullRow, ConsoleRow(type: .connection, timeMs: 1_700_000_000_400), message])
        printer.update(ConsoleSourceStatus(name: "127.0.0.1:6001", kind: .serverFeed, state: .failed("boom")))
        printer.post(
            snapshot: ConsoleSnapshot(
                source: "127.0.0.1:6001", node: "n1", connections: 1, occupiedChannels: [], timeMs: 0),
            cluster: true)
        printer.finish()

        let lines = out.withLock { $0 }.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.compactMap(ConsoleRow.init(jsonLine:)) == [Self.fullRow, message])
        #expect(printer.printed == 2)
        let stderr = err.withLock { $0 }
        #expect(stderr.contains("pushtop console: 127.0.0.1:6001: failed: boom\n"))
        #expect(stderr.contains("127.0.0.1:6001: hello: node n1, 1 connection, 0 occupied channels, cluster-wide"))

        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("the-secret"))
        let (items, damage) = RecordingCodec.read(text)
        #expect(damage == nil)
        let rows = items.compactMap { item -> ConsoleRow? in
            if case .console(_, let row) = item { return row }
            return nil
        }
        var scrubbed = message
        scrubbed.data = "contains \(Redaction.marker) by accident"
        #expect(rows == [Self.fullRow, scrubbed])
    }

    @Test func aConsoleItemSurvivesTheRecordingCodecAlsoForAnotherApp() throws {
        let item = RecordingItem.console(time: 1_700_000_001.25, row: Self.fullRow)
        let line = RecordingCodec.encode(item)
        #expect(line.hasPrefix(#"{"type":"console","t":1700000001.25,"row":{"#))
        #expect(try RecordingCodec.decode(line) == item)
        #expect(item.time == 1_700_000_001.25)
        let other = RecordingItem.inApp(2, item)
        #expect(try RecordingCodec.decode(RecordingCodec.encode(other)) == other)
        #expect(throws: RecordingLineError.self) {
            try RecordingCodec.decode(#"{"type":"console","t":1,"row":{"type":"x"}}"#)
        }
    }
}

/// `pushtop replay` of a console recording passes its rows on to the console, in time, and again after a jump back.
@Suite struct ConsoleReplayTests {
    @Test func replayPostsTheRecordedRowsWhenTheyComeDue() throws {
        var first = ConsoleRow(type: .connection, timeMs: 1_700_000_000_000)
        first.socketID = "1.1"
        var second = ConsoleRow(type: .apiMessage, timeMs: 1_700_000_002_000)
        second.channel = "chat"
        let text = [
            RecordingCodec.encode(
                .header(RecordingHeader(started: 100, endpoint: "e", channels: [], source: "pushtop console"))),
            RecordingCodec.encode(.console(time: 101, row: first)),
            RecordingCodec.encode(.console(time: 103, row: second)),
        ].joined(separator: "\n")
        var player = ReplayPlayer(file: "console.jsonl", text: text)
        #expect(player.damage == nil)
        let feed = ConsoleFeed()
        player.console = feed
        var state = player.initialState(size: Size(rows: 30, columns: 100), configuration: .init())
        player.advance(wallSeconds: 1.5, into: &state)
        #expect(feed.take().rows == [first])
        player.advance(wallSeconds: 2, into: &state)
        #expect(feed.take().rows == [second])
        player.restart(into: &state)
        #expect(feed.take().rows == [first, second])
    }
}
