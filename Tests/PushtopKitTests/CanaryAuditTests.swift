import PushtopKit
import Testing

/// The canary's sequence tracking per node: arrivals, misses while connected or away, duplicates, reorders,
/// stalls and latency.
@Suite struct CanaryAuditTests {
    let a = "10.0.0.1:6001", b = "10.0.0.2:6001"

    func audit() -> CanaryAudit {
        var audit = CanaryAudit(nodes: [a, b], grace: 2)
        _ = audit.availability(node: a, available: true, at: 0)
        _ = audit.availability(node: b, available: true, at: 0)
        return audit
    }

    @Test func everyNodeReceivingEverythingIsOK() {
        var audit = audit()
        for seq in 1...10 {
            let t = Double(seq)
            audit.published(seq: seq, via: seq % 2 == 0 ? b : a, at: t)
            #expect(audit.received(seq: seq, node: a, at: t + 0.004).isEmpty)
            #expect(audit.received(seq: seq, node: b, at: t + 0.010).isEmpty)
        }
        #expect(audit.check(now: 20).isEmpty)
        #expect(audit.finish(now: 20).isEmpty)
        #expect(audit.ok)
        #expect(audit.tallies[a]!.received == 10 && audit.tallies[a]!.published == 10)
        #expect(audit.tallies[a]!.latencies.percentile(50)! > 3.9 && audit.tallies[a]!.latencies.percentile(50)! < 4.1)
        #expect(audit.tallies[b]!.latencies.percentile(99)! > 9.9)
    }

    @Test func aNodeThatNeverGetsWhatAnotherPublishesMissesItWhileConnected() {
        var audit = audit()
        audit.published(seq: 1, via: a, at: 1)
        _ = audit.received(seq: 1, node: a, at: 1.01)
        #expect(audit.check(now: 2).isEmpty)  // still inside the grace time
        #expect(audit.check(now: 3.01) == [.missed(node: b, seq: 1, via: a, away: false)])
        #expect(!audit.ok)
        #expect(audit.tallies[b]!.lost == 1 && audit.tallies[b]!.away == 0 && audit.tallies[a]!.lost == 0)
    }

    @Test func missesWhileReconnectingCountAsAway() {
        var audit = audit()
        #expect(audit.availability(node: b, available: false, at: 5) == [.wentAway(node: b)])
        audit.published(seq: 1, via: a, at: 6)
        _ = audit.received(seq: 1, node: a, at: 6.01)
        #expect(audit.availability(node: b, available: true, at: 7) == [.reconnected(node: b)])
        audit.published(seq: 2, via: a, at: 7.5)
        _ = audit.received(seq: 2, node: a, at: 7.51)
        _ = audit.received(seq: 2, node: b, at: 7.52)
        #expect(audit.check(now: 10) == [.missed(node: b, seq: 1, via: a, away: true)])
        #expect(audit.ok)
        #expect(audit.tallies[b]!.away == 1 && audit.tallies[b]!.lost == 0 && audit.tallies[b]!.reconnects == 1)
    }

    @Test func aKilledNodeMissesEverythingAsAwayUntilTheEnd() {
        var audit = audit()
        _ = audit.availability(node: b, available: false, at: 1)
        for seq in 1...3 {
            audit.published(seq: seq, via: a, at: Double(seq))
            _ = audit.received(seq: seq, node: a, at: Double(seq) + 0.01)
        }
        let findings = audit.check(now: 4) + audit.finish(now: 4)
        #expect(
            findings.count == 3 && findings.allSatisfy { if case .missed(b, _, a, true) = $0 { true } else { false } })
        #expect(audit.ok && audit.tallies[a]!.lost == 0)
    }

    @Test func duplicatesAndReordersAreCounted() {
        var audit = audit()
        audit.published(seq: 1, via: a, at: 1)
        audit.published(seq: 2, via: b, at: 1.1)
        _ = audit.received(seq: 2, node: a, at: 1.2)
        #expect(audit.received(seq: 1, node: a, at: 1.3) == [.reordered(node: a, seq: 1, after: 2)])
        #expect(audit.received(seq: 1, node: a, at: 1.4) == [.duplicated(node: a, seq: 1)])
        _ = audit.received(seq: 1, node: b, at: 1.2)
        _ = audit.received(seq: 2, node: b, at: 1.2)
        _ = audit.check(now: 10)
        // After the canary is settled, a copy still counts.
        #expect(audit.received(seq: 2, node: b, at: 11) == [.duplicated(node: b, seq: 2)])
        #expect(!audit.ok)
        #expect(
            audit.tallies[a]!.duplicated == 1 && audit.tallies[a]!.reordered == 1 && audit.tallies[b]!.duplicated == 1)
    }

    /// A publish through B fails (its connection broke after B took the event), the canary publishes the same seq
    /// through A: both copies arrive on every node, and neither node counts a duplicate.
    @Test func aFailedPublishThatLandedAnywayIsNoDuplicate() {
        var audit = audit()
        audit.published(seq: 1, via: b, at: 1)
        _ = audit.received(seq: 1, via: b, node: a, at: 1.01)  // B's copy, before its error is known
        audit.cancel(seq: 1)
        audit.published(seq: 1, via: a, at: 1.1)
        #expect(audit.received(seq: 1, via: a, node: a, at: 1.11).isEmpty)
        #expect(audit.received(seq: 1, via: a, node: b, at: 1.12).isEmpty)
        #expect(audit.received(seq: 1, via: b, node: b, at: 1.13) == [.landedAfterError(node: b, seq: 1, via: b)])
        // Every publish failed, and one landed after the seq was settled: still no duplicate.
        audit.published(seq: 2, via: a, at: 2)
        audit.cancel(seq: 2)
        audit.published(seq: 2, via: b, at: 2)
        audit.cancel(seq: 2)
        audit.published(seq: 3, via: a, at: 3)
        _ = audit.received(seq: 3, via: a, node: a, at: 3.01)
        _ = audit.received(seq: 3, via: a, node: b, at: 3.01)
        _ = audit.check(now: 10)
        #expect(audit.received(seq: 2, via: a, node: a, at: 11) == [.landedAfterError(node: a, seq: 2, via: a)])
        #expect(audit.ok)
        for node in [a, b] {
            #expect(audit.tallies[node]!.received == 2 && audit.tallies[node]!.published == 2)
            #expect(audit.tallies[node]!.duplicated == 0 && audit.tallies[node]!.lost == 0)
        }
        // A real copy of a publish that succeeded is still a duplicate.
        #expect(audit.received(seq: 3, via: a, node: b, at: 12) == [.duplicated(node: b, seq: 3)])
    }

    /// An API that is down for a long run: the failures are remembered for the recent seqs only, and those still
    /// tell a landed publish from a duplicate.
    @Test func aLongOutageKeepsOnlyRecentFailures() {
        var audit = audit()
        for seq in 1...5000 {
            audit.published(seq: seq, via: a, at: Double(seq) / 10)
            audit.cancel(seq: seq)
        }
        #expect(audit.received(seq: 4990, via: a, node: b, at: 501) == [.landedAfterError(node: b, seq: 4990, via: a)])
        #expect(audit.received(seq: 10, via: a, node: b, at: 501).isEmpty)  // forgotten, and not a canary it awaits
        #expect(audit.tallies[b]!.published == 0 && audit.tallies[b]!.received == 0 && audit.ok)
    }

    @Test func aLateArrivalIsNoLongerLost() {
        var audit = audit()
        audit.published(seq: 1, via: a, at: 1)
        _ = audit.received(seq: 1, node: a, at: 1.01)
        _ = audit.check(now: 3.5)
        #expect(audit.tallies[b]!.lost == 1)
        #expect(audit.received(seq: 1, node: b, at: 4) == [.late(node: b, seq: 1, latencyMs: 3000)])
        #expect(audit.tallies[b]!.lost == 0 && audit.ok)
    }

    @Test func aConnectedNodeThatStopsReceivingStallsThenResumes() {
        var audit = CanaryAudit(nodes: [a], grace: 1, stallAfter: 3)
        _ = audit.availability(node: a, available: true, at: 0)
        audit.published(seq: 1, via: a, at: 0.5)
        _ = audit.received(seq: 1, node: a, at: 0.6)
        for seq in 2...5 { audit.published(seq: seq, via: a, at: Double(seq)) }
        let findings = audit.check(now: 4)
        #expect(findings.contains { if case .stalled(a, let s) = $0 { abs(s - 3.4) < 0.001 } else { false } })
        #expect(!audit.check(now: 5).contains { if case .stalled = $0 { true } else { false } })  // once
        #expect(audit.received(seq: 5, node: a, at: 5.1).contains(.resumed(node: a)))
    }

    @Test func aFailedPublishIsExpectedNowhere() {
        var audit = audit()
        audit.published(seq: 1, via: a, at: 1)
        audit.cancel(seq: 1)
        #expect(audit.check(now: 10).isEmpty && audit.finish(now: 10).isEmpty)
        #expect(audit.tallies[a]!.published == 0 && audit.ok)
    }

    @Test func windowsGiveTheLatencySinceTheLastReport() {
        var audit = audit()
        audit.published(seq: 1, via: a, at: 1)
        _ = audit.received(seq: 1, node: a, at: 1.002)
        #expect(audit.takeWindow(node: a).values.count == 1)
        #expect(audit.takeWindow(node: a).isEmpty)
        #expect(audit.tallies[a]!.latencies.values.count == 1)
    }
}
