import PusherProtocol
import PushtopDashboardFakes
import Testing

@testable import PushtopDashboard

/// The presence check through `reduce` and the members pane: joins and leaves during a request are not
/// differences, a real ghost or missing member shows once two answers agree.
struct PresenceCheckTests {
    func answer(_ state: inout DashboardState, _ ids: [String]) {
        _ = state.reduce(.presenceUsers(channel: "presence-lobby", userIDs: ids, error: nil))
    }

    @Test func joinsAndLeavesWhileTheRequestIsInFlightAreNotDifferences() {
        var state = demoStateWithAPI()
        #expect(state.reduce(.tick(now: t0 + 1)) == [.fetchPresenceUsers("presence-lobby")])
        // grace joins and bob leaves after the server answered, before the answer arrives.
        _ = state.reduce(
            .client([
                .memberAdded(channel: "presence-lobby", member: PresenceMember(userID: "grace")),
                .memberRemoved(channel: "presence-lobby", member: PresenceMember(userID: "bob")),
            ]))
        answer(&state, ["you", "alice", "bob", "li", "zoe"])
        let screen = frame(state)
        #expect(screen.contains("5 · ✓ server"), "\(screen)")
        #expect(!screen.contains("ghost") && !screen.contains("missing"))
        // The next answer has both changes: still no alarm.
        #expect(state.reduce(.tick(now: t0 + 7)) == [.fetchPresenceUsers("presence-lobby")])
        answer(&state, ["you", "alice", "grace", "li", "zoe"])
        #expect(frame(state).contains("5 · ✓ server"))
    }

    @Test func aRealGhostAndARealMissingMemberShowWithinTwoIntervals() {
        var state = demoStateWithAPI()
        // The server lost bob (no member_removed ever comes) and holds mallory (no member_added ever came).
        var time = t0
        var shownAt: Double?
        while time < t0 + 2 * PresenceCheckState.interval, shownAt == nil {
            time += 0.25
            if state.reduce(.tick(now: time)) == [.fetchPresenceUsers("presence-lobby")] {
                answer(&state, ["you", "alice", "li", "zoe", "mallory"])
            }
            if frame(state).contains("2 differ") { shownAt = time }
        }
        #expect(shownAt != nil)
        let screen = frame(state)
        #expect(
            screen.split(separator: "\n").contains { $0.contains("bob") && $0.contains("ghost: not on the server") })
        #expect(screen.contains("? mallory missing: on the server only"))
    }

    @Test func aStaleAnswerIsLabelledWithItsAge() {
        var state = demoStateWithAPI()
        _ = state.reduce(.tick(now: t0 + 1))
        answer(&state, ["you", "alice", "bob", "li", "zoe"])
        #expect(frame(state).contains("5 · ✓ server"))
        // The next requests fail: the badge says how old its answer is.
        _ = state.reduce(.tick(now: t0 + 7))
        _ = state.reduce(.presenceUsers(channel: "presence-lobby", userIDs: nil, error: "timed out"))
        _ = state.reduce(.tick(now: t0 + 13))
        let screen = frame(state)
        let title = screen.split(separator: "\n").first { $0.contains("3 Members · presence-lobby") }
        #expect(title?.contains("5 · ✓ 12 s ago ─┐") == true, "\(title ?? "")")
    }
}
