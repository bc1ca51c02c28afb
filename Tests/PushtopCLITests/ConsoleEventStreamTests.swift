import PusherProtocol
import PushtopDashboard
import Testing

@testable import PushtopCLI

/// The `text/event-stream` reading behind `pushtop console`: the same events whatever the network's chunking,
/// keepalives skipped, memory bounded; and the feed's events read as a hello or rows.
@Suite struct ConsoleEventStreamTests {
    static let stream =
        "event: hello\ndata: {\"node\":\"a\"}\n\n: keepalive\n\ndata: {\"type\":\"connection\",\"time_ms\":5}\r\n\r\n"
        + "data: line one\ndata:line two\nid: 7\nretry: 10\n\n" + "event: lonely\n\n" + "data: é漢🎉\r\r"

    static let expected = [
        ServerSentEvent(event: "hello", data: #"{"node":"a"}"#),
        ServerSentEvent(data: #"{"type":"connection","time_ms":5}"#),
        ServerSentEvent(data: "line one\nline two"),
        ServerSentEvent(data: "é漢🎉"),
    ]

    @Test func theSameEventsWhereverTheChunksSplit() {
        let bytes = Array(Self.stream.utf8)
        var whole = ServerSentEventParser()
        #expect(whole.feed(bytes) == Self.expected)
        #expect(whole.comments == 1)
        for cut in 1..<bytes.count {
            var parser = ServerSentEventParser()
            let events = parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...])
            #expect(events == Self.expected, "cut at \(cut)")
        }
        var byteByByte = ServerSentEventParser()
        #expect(bytes.flatMap { byteByByte.feed([$0]) } == Self.expected)
    }

    @Test func aLineBeyondTheBoundIsDroppedAndTheStreamGoesOn() {
        var parser = ServerSentEventParser(maxLineBytes: 64)
        let long = "data: " + String(repeating: "x", count: 500) + "\n\n"
        let events = parser.feed(Array((long + "data: ok\n\n").utf8))
        #expect(events == [ServerSentEvent(data: "ok")])
        #expect(parser.oversizedLines == 1)
        // Data built of many short lines is bounded too.
        let many = String(repeating: "data: 0123456789\n", count: 20) + "\n" + "data: next\n\n"
        #expect(parser.feed(Array(many.utf8)) == [ServerSentEvent(data: "next")])
        #expect(parser.oversizedLines == 2)
    }

    @Test func theHelloIsASnapshotAndRowsAreRows() {
        let hello = ServerSentEvent(
            event: "hello",
            data:
                #"{"node":"n2","app_id":"7","time_ms":1700000000123,"connections":42,"channels":["a","b"],"cluster":true}"#
        )
        #expect(
            ConsoleFeedMessage(hello, source: "h:1")
                == .hello(
                    ConsoleSnapshot(
                        source: "h:1", node: "n2", appID: "7", connections: 42, occupiedChannels: ["a", "b"],
                        timeMs: 1_700_000_000_123, cluster: true), cluster: true))
        var row = ConsoleRow(type: .clientEvent, timeMs: 1_700_000_000_200)
        row.channel = "private-chat"
        row.event = "client-typing"
        row.userID = "u1"
        #expect(ConsoleFeedMessage(ServerSentEvent(data: row.jsonLine), source: "h:1") == .row(row))
        if case .unreadable = ConsoleFeedMessage(ServerSentEvent(data: #"{"type":"nope","time_ms":1}"#), source: "") {
        } else {
            Issue.record("an unknown row type is unreadable")
        }
    }
}
