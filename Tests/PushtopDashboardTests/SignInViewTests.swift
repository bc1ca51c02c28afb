import PusherProtocol
import PushtopDashboard
import Testing

/// The signed-in user, the watchlist and events sent to the user, through `reduce` and the views.
@Suite struct SignInViewTests {
    func signedIn() -> DashboardState {
        var state = demoState()
        _ = state.reduce(
            .client([
                .signedIn(
                    SignedInUser(
                        id: "alice", userData: #"{"id":"alice","watchlist":["bob","carl"]}"#,
                        watchlist: ["bob", "carl"])),
                .watchlist(WatchlistChange(status: .online, userIDs: ["bob"])),
            ]))
        return state
    }

    @Test func signingInShowsTheUserInTheConnectionPane() {
        var state = demoState()
        #expect(
            !pane(Size(rows: 14, columns: 40)) { ConnectionPaneView.draw(state, in: $1, into: &$0) }.contains("User"))
        #expect(state.press(.char("i")) == [.signIn])
        var text = pane(Size(rows: 14, columns: 40)) { ConnectionPaneView.draw(state, in: $1, into: &$0) }
        #expect(text.contains("User       signing in…"))
        state = signedIn()
        text = pane(Size(rows: 14, columns: 40)) { ConnectionPaneView.draw(state, in: $1, into: &$0) }
        #expect(text.contains("User       ● alice"))
        #expect(state.press(.char("i")) == [.signOut])
        _ = state.reduce(.client([.signedOut(userID: "alice")]))
        text = pane(Size(rows: 14, columns: 40)) { ConnectionPaneView.draw(state, in: $1, into: &$0) }
        #expect(!text.contains("alice"))
        #expect(state.watchlist.isEmpty)
    }

    @Test func aFailedSignInIsShownWithItsReason() {
        var state = demoState()
        state.press(.char("i"))
        _ = state.reduce(.client([.signInFailed(status: 403, message: "not you")]))
        let text = pane(Size(rows: 14, columns: 60)) { ConnectionPaneView.draw(state, in: $1, into: &$0) }
        #expect(text.contains("sign-in failed: HTTP 403: not you"))
        #expect(state.log.entry(seq: state.log.nextSeq - 1)?.kind == .error)
    }

    @Test func theWatchlistShowsOnlineAndOfflineDotsUnderTheRoster() {
        var state = signedIn()
        var text = pane(Size(rows: 12, columns: 40)) { MembersPaneView.draw(state, in: $1, into: &$0) }
        #expect(text.contains("Watchlist 1/2 online"))
        #expect(text.contains("● bob"))
        #expect(text.contains("○ carl"))
        #expect(text.contains("3 Members · presence-lobby"))
        _ = state.reduce(
            .client([
                .watchlist(WatchlistChange(status: .offline, userIDs: ["bob"])),
                .watchlist(WatchlistChange(status: .online, userIDs: ["carl"])),
            ]))
        text = pane(Size(rows: 12, columns: 40)) { MembersPaneView.draw(state, in: $1, into: &$0) }
        #expect(text.contains("○ bob"))
        #expect(text.contains("● carl"))
    }

    @Test func withoutAPresenceChannelTheMembersPaneShowsTheWatchlist() {
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0)
        _ = state.reduce(
            .client([
                .signedIn(SignedInUser(id: "alice", userData: #"{"id":"alice"}"#, watchlist: ["bob"]))
            ]))
        let text = pane(Size(rows: 6, columns: 40)) { MembersPaneView.draw(state, in: $1, into: &$0) }
        #expect(text.contains("3 Members · watchlist"))
        #expect(text.contains("○ bob"))
    }

    @Test func userEventsAreLoggedUnderTheUserWithTheirOwnMarker() {
        var state = signedIn()
        _ = state.reduce(
            .client([
                .userEvent(
                    UserEvent(
                        userID: "alice", name: "invoice-paid",
                        dataText: #"{"amount":42}"#, receivedAt: t0))
            ]))
        let entry = state.log.entry(seq: state.log.nextSeq - 1)
        #expect(entry?.kind == .user)
        #expect(entry?.channel == "alice")
        let text = frame(state)
        #expect(text.contains("@alice"))
        #expect(text.contains("invoice-paid"))
        #expect(!state.channels.contains { $0.name.contains("alice") })
    }

    @Test func theKeyIsInTheHelpAndTheHintBar() {
        var state = demoState()
        #expect(KeyTable.standard.hints(focus: .log).contains { $0.action == .toggleSignIn })
        state.press(.char("?"))
        #expect(frame(state).contains("sign the user in / out"))
    }
}
