import Testing

@testable import PushtopDashboard

/// The one ring buffer behind the event log and the wire inspector: bounded, counting what it dropped, and
/// indexing what a filter shows.
struct BoundedRingTests {
    @Test func keepsTheNewestCountsTheDroppedAndIndexesTheShown() {
        var ring = BoundedRing<Int>(capacity: 3)
        for n in 0..<5 { ring.append { _ in n * 10 } }
        #expect(ring.elements == [20, 30, 40])
        #expect(ring.count == 3 && ring.dropped == 2 && ring.firstSeq == 2 && ring.nextSeq == 5)
        #expect(ring.element(seq: 1) == nil && ring.element(seq: 4) == 40)
        // Every element shown: the index is the ring itself.
        #expect(ring.shownCount == 3 && ring.shownSeq(at: 0) == 2)
        #expect(ring.shownIndex(atOrBefore: 9) == 2 && ring.shownIndex(atOrBefore: 1) == nil)
        // A filter indexes the kept elements and those appended after.
        ring.setShown { $0 % 20 == 0 }
        #expect(ring.shownCount == 2 && ring.shownSeq(at: 1) == 4)
        ring.append({ _ in 50 }, isShown: { $0 % 20 == 0 })
        ring.append({ _ in 60 }, isShown: { $0 % 20 == 0 })
        #expect(ring.elements == [40, 50, 60])
        #expect(ring.shownCount == 2 && (0..<2).map(ring.shownSeq(at:)) == [4, 6])
        #expect(ring.shownIndex(atOrBefore: 5) == 0)
        ring.setShown(nil)
        #expect(ring.shownCount == 3)
    }

    @Test func theIndexStaysRightLongAfterItsFrontWasCompacted() {
        var ring = BoundedRing<Int>(capacity: 100)
        ring.setShown { $0 % 3 == 0 }
        for n in 0..<20_000 { ring.append({ _ in n }, isShown: { $0 % 3 == 0 }) }
        #expect(ring.dropped == 19_900)
        let shown = (0..<ring.shownCount).map { ring.element(seq: ring.shownSeq(at: $0))! }
        #expect(shown == (19_900..<20_000).filter { $0 % 3 == 0 })
    }

    @Test func theLogAndTheWireInspectorShareItsBounds() {
        var log = EventLog(capacity: 2)
        for n in 0..<3 { log.append(time: 0, kind: .event, channel: "c", event: "e\(n)", dataText: nil) }
        #expect(log.dropped == 1 && log.entries.map(\.event) == ["e1", "e2"])
        var wire = WireLog(capacity: 2)
        wire.droppedUpstream = 5
        for _ in 0..<3 { wire.append(.init(time: 0, direction: .inbound, kind: .text, size: 2, text: "{}")) }
        #expect(wire.count == 2 && wire.dropped == 6)
    }
}
