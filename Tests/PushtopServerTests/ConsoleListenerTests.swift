import PusherProtocol
import Testing

@testable import PushtopServer

/// A listener's bounded queue: the oldest rows go first, and the reader learns how many with a `gap` row.
@Suite struct ConsoleListenerTests {
    func row(_ type: ConsoleRowType, _ n: Int) -> ConsoleRow {
        var row = ConsoleRow(type: type, timeMs: Int64(n))
        row.event = "e\(n)"
        return row
    }

    @Test func aFullQueueDropsTheOldestAndReportsTheGapBeforeTheNextRows() async {
        let listener = ConsoleListener(types: nil, capacity: 3, node: "n1", appID: "7")
        for n in 1...5 { listener.push(row(.apiMessage, n)) }
        guard case .rows(let rows) = await listener.next() else {
            Issue.record("no rows")
            return
        }
        #expect(rows.map(\.type) == [.gap, .apiMessage, .apiMessage, .apiMessage])
        #expect(rows[0].dropped == 2 && rows[0].node == "n1" && rows[0].appID == "7")
        #expect(rows.dropFirst().map(\.event) == ["e3", "e4", "e5"])
        listener.push(row(.apiMessage, 6))
        #expect(await listener.next() == .rows([row(.apiMessage, 6)]))
    }

    @Test func aListenerKeepsOnlyTheTypesItAskedFor() async {
        let listener = ConsoleListener(types: [.connection], capacity: 10, node: "n", appID: "a")
        listener.push(row(.apiMessage, 1))
        listener.push(row(.connection, 2))
        #expect(await listener.next() == .rows([row(.connection, 2)]))
    }

    @Test func aWaitingReaderWakesForRowsKeepAlivesAndTheEnd() async {
        let listener = ConsoleListener(types: nil, capacity: 10, node: "n", appID: "a")
        async let first = listener.next()
        try? await Task.sleep(for: .milliseconds(20))
        listener.push(row(.vacated, 1))
        #expect(await first == .rows([row(.vacated, 1)]))
        listener.wake()
        #expect(await listener.next() == .idle)
        listener.finish()
        #expect(await listener.next() == .finished)
    }

    @Test func nobodyListeningMeansNoRowIsBuilt() {
        let hub = ConsoleHub(appID: "a", nodeID: "n", clustered: false)
        var built = 0
        hub.emit {
            built += 1
            return row(.connection, 1)
        }
        #expect(built == 0)
        let listener = hub.addListener()
        hub.emit {
            built += 1
            return row(.connection, 2)
        }
        #expect(built == 1 && listener.queued == 1)
        hub.remove(listener)
        #expect(!hub.isActive)
        hub.emit {
            built += 1
            return row(.connection, 3)
        }
        #expect(built == 1)
    }

    @Test func rowsAreTaggedAndForwardedOnlyWhileAnotherNodeListens() {
        let hub = ConsoleHub(appID: "a", nodeID: "n1", clustered: true)
        hub.emit { row(.connection, 1) }
        #expect(hub.takeOutgoing().isEmpty)
        hub.remoteListening()
        #expect(hub.isActive)
        hub.emit { row(.connection, 2) }
        let out = hub.takeOutgoing()
        #expect(out.count == 1 && out[0].node == "n1" && out[0].appID == "a" && out[0].source == .server)
        // Once the announcement is old, forwarding stops (and no row is built).
        hub.remoteListening(now: .now - .seconds(60))
        hub.emit { row(.connection, 3) }
        #expect(hub.takeOutgoing().isEmpty)
        #expect(!hub.isActive)
    }

    @Test func forwardedRowsReachLocalListenersButAreNotForwardedAgain() async {
        let hub = ConsoleHub(appID: "a", nodeID: "n1", clustered: true)
        let listener = hub.addListener()
        hub.remoteListening()
        var remote = row(.subscribed, 1)
        remote.node = "n2"
        hub.receive(forwarded: [remote])
        #expect(await listener.next() == .rows([remote]))
        #expect(hub.takeOutgoing().isEmpty)
    }

    @Test func dataIsCutAtTheBoundOnACharacterBoundary() {
        var row = ConsoleRow(type: .apiMessage, timeMs: 0)
        let text = String(repeating: "a", count: 999) + "é" + "tail"
        ConsoleRowData.fill(&row, text)
        #expect(row.dataBytes == text.utf8.count && row.dataTruncated == true)
        #expect(row.data == String(repeating: "a", count: 999))
        ConsoleRowData.fill(&row, "short")
        #expect(row.data == "short" && row.dataTruncated == false && row.dataBytes == 5)
    }

    @Test func aClusterMessageOfRowsRoundTrips() {
        var one = row(.apiMessage, 1)
        one.node = "n2"
        one.data = "quote \" and \\ slash"
        let text = ConsoleClusterLink.batch([one, row(.gap, 2)], node: "n2")
        let object = JSONValue.parseIfJSON(text)
        #expect(object?["k"]?.stringValue == "rows" && object?["o"]?.stringValue == "n2")
        #expect(object?["r"]?.arrayValue?.compactMap(ConsoleRow.init(json:)) == [one, row(.gap, 2)])
    }
}
