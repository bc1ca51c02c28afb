import PushtopTestSupport
import Testing

@testable import PushtopKit

/// The rule that compares a changing local roster with remote answers: churn during a request is never a
/// difference, a real ghost or missing member shows on the second answer.
struct RosterAgreementTests {
    typealias Agreement = RosterAgreement<String>

    @Test func aMemberWhoJoinsDuringTheRequestIsNotMissingNorAGhost() {
        var check = Agreement()
        var local: Set = ["alice", "bob"]
        check.requestSent()
        // The server answered before grace's join reached it; the client has seen the join since.
        local.insert("grace")
        check.memberChanged("grace")
        check.answered(remote: ["alice", "bob"], local: local)
        #expect(check.verdict == .agree)
        // The other way round: the server has the join, the client's member_added is still on its way; the
        // next answer (with the event arrived in between) agrees, nothing was ever reported.
        check.requestSent()
        check.answered(remote: ["alice", "bob", "grace", "henry"], local: local)
        #expect(check.verdict == .checking(suspects: 1))
        #expect(check.suspectMissing == ["henry"])
        local.insert("henry")
        check.memberChanged("henry")
        check.requestSent()
        check.answered(remote: ["alice", "bob", "grace", "henry"], local: local)
        #expect(check.verdict == .agree)
    }

    @Test func aMemberWhoLeavesDuringTheRequestIsNotAGhost() {
        var check = Agreement()
        var local: Set = ["alice", "barbara", "bob"]
        check.requestSent()
        local.remove("barbara")
        check.memberChanged("barbara")
        // The server still had barbara when it answered: not missing.
        check.answered(remote: ["alice", "barbara", "bob"], local: local)
        #expect(check.verdict == .agree)
        // The server dropped bob, his member_removed arrives after the answer: a suspect, then cleared.
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        #expect(check.verdict == .checking(suspects: 1))
        local.remove("bob")
        check.memberChanged("bob")
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        #expect(check.verdict == .agree)
        #expect(check.ghosts.isEmpty && check.missing.isEmpty)
    }

    @Test func aDifferenceIsConfirmedByTwoConsecutiveAnswersWithoutAnEventBetween() {
        var check = Agreement()
        let local: Set = ["alice", "bob"]
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        #expect(check.verdict == .checking(suspects: 1))
        #expect(check.ghosts.isEmpty)
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        #expect(check.verdict == .differ(ghosts: ["bob"], missing: []))
        // Still a ghost on the third answer; gone once the server holds bob again.
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        #expect(check.ghosts == ["bob"])
        check.requestSent()
        check.answered(remote: ["alice", "bob"], local: local)
        #expect(check.verdict == .agree)
        // An event about a suspect between the two answers discounts it instead of confirming it.
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        check.memberChanged("bob")
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        #expect(check.ghosts.isEmpty)
        #expect(check.verdict == .checking(suspects: 1))
    }

    @Test func aRealGhostShowsOnTheSecondAnswer() {
        // The server lost bob and no member_removed ever comes: the client keeps showing him.
        var check = Agreement()
        let local: Set = ["alice", "bob", "carol"]
        check.requestSent()
        check.answered(remote: local, local: local)
        #expect(check.verdict == .agree)
        check.requestSent()
        check.answered(remote: ["alice", "carol"], local: local)
        check.requestSent()
        check.answered(remote: ["alice", "carol"], local: local)
        #expect(check.verdict == .differ(ghosts: ["bob"], missing: []))
    }

    @Test func aRealMissingMemberShowsOnTheSecondAnswerEvenUnderChurn() {
        // The server holds mallory, the client never heard her join; others come and go meanwhile.
        var check = Agreement()
        var local: Set = ["alice", "bob"]
        var remote: Set = ["alice", "bob", "mallory"]
        for round in 0..<2 {
            check.requestSent()
            let churner = "churn-\(round)"
            local.insert(churner)
            check.memberChanged(churner)
            remote.insert(churner)
            check.answered(remote: remote, local: local)
        }
        #expect(check.verdict == .differ(ghosts: [], missing: ["mallory"]))
    }

    @Test func churnOfManyMembersNeverRaisesAnAlarm() {
        // 100 members, 20 of whom leave and rejoin all the time (a toggle every 50 ms). The server's answer is
        // its roster at a moment inside the request's window; each member event reaches the client up to 1.5 s
        // after the server applied it (so some arrive after the answer). Five minutes of it, asked every 5 s.
        var random = SplitMix(seed: 16)
        let churners = (80..<100).map { "user-\($0)" }
        var server = Set((0..<100).map { "user-\($0)" })
        var local = server
        var inTransit: [(at: Double, member: String, joined: Bool)] = []
        var check = Agreement()
        var suspected = 0
        var t = 0.0
        while t < 300 {
            let requestAt = t, computedAt = t + 0.2 + random.unit() * 0.6, answerAt = computedAt + 0.1
            var answer: Set<String>?
            check.requestSent()
            while t < requestAt + 5 {
                t += 0.05
                let id = churners[random.below(churners.count)]
                let joined = !server.contains(id)
                if joined { server.insert(id) } else { server.remove(id) }
                inTransit.append((t + random.unit() * 1.5, id, joined))
                for e in inTransit where e.at <= t {
                    if e.joined { local.insert(e.member) } else { local.remove(e.member) }
                    check.memberChanged(e.member)
                }
                inTransit.removeAll { $0.at <= t }
                if answer == nil, t >= computedAt { answer = server }
                if let remote = answer, t >= answerAt, check.isAwaitingAnswer {
                    check.answered(remote: remote, local: local)
                    if check.hasSuspects { suspected += 1 }
                    #expect(check.ghosts.isEmpty && check.missing.isEmpty, "at \(t)")
                }
            }
        }
        #expect(check.verdict != .unknown)
        // Events in transit across the answer do make suspects (that is why confirmation is needed).
        #expect(suspected > 0)
    }

    @Test func aFailedRequestKeepsTheVerdictAndResetStartsOver() {
        var check = Agreement()
        let local: Set = ["alice", "bob"]
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        check.requestSent()
        check.requestFailed()
        #expect(check.verdict == .checking(suspects: 1))
        #expect(!check.isAwaitingAnswer)
        check.requestSent()
        check.answered(remote: ["alice"], local: local)
        #expect(check.verdict == .differ(ghosts: ["bob"], missing: []))
        check.reset()
        #expect(check.verdict == .unknown)
    }
}
