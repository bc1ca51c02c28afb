import PusherProtocol
import PushtopDashboardFakes
import Testing

@testable import PushtopDashboard

/// The channel browser and the presence check through `reduce`: requests become effects, answers become rows.
struct ChannelBrowserTests {
    let list = [
        OccupiedChannel(name: "market-data", subscriptionCount: 12),
        OccupiedChannel(name: "presence-lobby", subscriptionCount: 6, userCount: 6),
        OccupiedChannel(name: "news-room", subscriptionCount: 40),
    ]

    @Test func browserAsksTheAPIListsSortsFiltersAndSubscribes() {
        var state = demoStateWithAPI()
        #expect(state.press(.char("b")) == [.fetchOccupiedChannels])
        #expect(frame(state).contains("asking the HTTP API"))
        _ = state.reduce(.occupiedChannels(list, error: nil))
        var screen = frame(state)
        #expect(screen.contains("Channel browser · sorted by name"))
        #expect(screen.contains("3 channels"))
        let rows = screen.split(separator: "\n").filter {
            $0.contains("market-data") || $0.contains("news-room") || $0.contains("presence-lobby")
        }
        #expect(rows.first?.contains("market-data") == true)
        #expect(rows.first { $0.contains("presence-lobby") }?.contains("✓") == true)
        // Refreshed every few seconds while open, never twice at once.
        #expect(state.reduce(.tick(now: t0 + 1)) == [])
        #expect(state.reduce(.tick(now: t0 + 3.5)) == [.fetchOccupiedChannels])
        #expect(state.reduce(.tick(now: t0 + 7)) == [])
        _ = state.reduce(.occupiedChannels(nil, error: "HTTP 500"))
        #expect(frame(state).contains("HTTP API: HTTP 500"))
        #expect(frame(state).contains("news-room"))  // the last good list stays
        state.press(.char("o"))
        screen = frame(state)
        #expect(screen.contains("sorted by subscribers"))
        #expect(state.browser.rows.first?.name == "news-room")
        state.press(.char("/"))
        state.type("news")
        state.press(.enter)
        #expect(state.browser.rows.map(\.name) == ["news-room"])
        #expect(state.press(.enter) == [.subscribe("news-room")])
        #expect(state.channels.contains { $0.name == "news-room" })
        // Already subscribed: refused with the reason.
        #expect(state.press(.enter) == [])
        #expect(state.status?.text.contains("already subscribed") == true)
        state.press(.escape, .escape)
        #expect(state.view == .panes)
    }

    @Test func withoutTheSecretTheBrowserSaysWhatItNeeds() {
        var state = demoState()
        #expect(state.press(.char("b")) == [])
        #expect(frame(state).contains("needs the app id and secret"))
    }

    @Test func presenceCheckMarksGhostsAndMissingMembers() {
        var state = demoStateWithAPI()
        #expect(state.reduce(.tick(now: t0 + 1)) == [.fetchPresenceUsers("presence-lobby")])
        _ = state.reduce(
            .presenceUsers(channel: "presence-lobby", userIDs: ["you", "alice", "li", "zoe", "mallory"], error: nil))
        // One answer is not enough to accuse anyone: checking, and asked again soon.
        #expect(frame(state).contains("5 · checking"))
        #expect(!frame(state).contains("ghost"))
        #expect(state.reduce(.tick(now: t0 + 3)) == [])
        #expect(state.reduce(.tick(now: t0 + 3.6)) == [.fetchPresenceUsers("presence-lobby")])
        _ = state.reduce(
            .presenceUsers(channel: "presence-lobby", userIDs: ["you", "alice", "li", "zoe", "mallory"], error: nil))
        let screen = frame(state)
        #expect(screen.contains("5 · 2 differ"))
        #expect(
            screen.split(separator: "\n").contains { $0.contains("bob") && $0.contains("ghost: not on the server") })
        #expect(screen.contains("? mallory missing: on the server only"))
        _ = state.reduce(
            .presenceUsers(channel: "presence-lobby", userIDs: ["you", "alice", "bob", "li", "zoe"], error: nil))
        #expect(frame(state).contains("· ✓ server"))
        // Asked again every few seconds.
        #expect(state.reduce(.tick(now: t0 + 8)) == [])
        #expect(state.reduce(.tick(now: t0 + 8.7)) == [.fetchPresenceUsers("presence-lobby")])
    }
}
